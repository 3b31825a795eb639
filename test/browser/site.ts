import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer } from "../helpers/harness";

// The pages of examples/ exactly as shipped, their placeholders filled in by string replacement:
// what a newcomer copies is what runs here.
const EXAMPLES = join(import.meta.dir, "../../examples");

/** The site's own thank-you page, where the examples' redirects and `_next` send a visitor. */
export const SITE_THANKS = "<!doctype html><title>Thanks</title><h1>Thank you, we will be in touch</h1>";

/** A website on another origin than formsvc, serving pages the tests give it and /thanks.html. */
export interface Site {
  /** `http://localhost:PORT`: a secure context (the widget and crypto.randomUUID need one) and another origin than formsvc's 127.0.0.1. */
  origin: string;
  /** Serves `html` at `path` and returns its URL. */
  serve(path: string, html: string): string;
  stop(): Promise<void>;
}

/** Starts a site on loopback (stop it in afterAll). */
export function startSite(): Site {
  const pages = new Map<string, string>([["/thanks.html", SITE_THANKS]]);
  const site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const html = pages.get(new URL(req.url).pathname);
      return html === undefined
        ? new Response("not found", { status: 404 })
        : new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  const origin = `http://localhost:${site.port}`;
  return {
    origin,
    serve(path, html) {
      pages.set(path, html);
      return origin + path;
    },
    stop: () => site.stop(true),
  };
}

/** examples/`file` with each placeholder replaced by its value; each must be in the file, so a renamed placeholder fails here. */
export function example(file: string, fill: Record<string, string>): string {
  let html = readFileSync(join(EXAMPLES, file), "utf8");
  for (const [placeholder, value] of Object.entries(fill)) {
    expect([file, placeholder, html.includes(placeholder)]).toEqual([file, placeholder, true]);
    html = html.replaceAll(placeholder, value);
  }
  return html;
}

export type StoredRow = { status: string; data: Record<string, any> };

/** The form's submissions as stored, oldest first. */
export const storedRows = async (server: TestServer, formId: string): Promise<StoredRow[]> =>
  (
    await server.query<{ status: string; data: string }>(
      "SELECT status, data FROM submissions WHERE form_id = ? ORDER BY created_at, id",
      formId,
    )
  ).map((r) => ({ status: r.status, data: JSON.parse(r.data) }));

/** A submission's fields without `_meta`. */
export const fieldsOf = ({ _meta, ...data }: Record<string, unknown>) => data;

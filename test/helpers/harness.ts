import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type ConfigOverrides } from "../../src/config";
import type { Clock } from "../../src/lib/clock";
import type { Logger } from "../../src/lib/log";
import { buildMeta } from "../../src/modules/submissions/meta";
import { startServer, type RunningServer } from "../../src/server";
import { checkedFetch } from "./openapi-check";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const SPEC_PATH = "/api/v1/openapi.json";

/** A fresh temporary folder, removed by `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-test-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestServer extends RunningServer {
  dbPath: string;
  dir: string;
  /**
   * fetch that checks every answer against the server's OpenAPI document (see openapi-check.ts): a
   * status, header or body the document does not describe fails the test. request() and json() use
   * it; hand it to anything else that talks to the server (the client library).
   */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** fetch against the server; `key` goes in X-API-Key. */
  request(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  /** request() and the parsed JSON body. */
  json<T = any>(path: string, init?: RequestInit & { key?: string }): Promise<{ status: number; body: T; headers: Headers }>;
  /** A second, read-only look at the database file, as another process would see it. */
  query<T = any>(sql: string, ...params: (string | number | null)[]): T[];
  close(): Promise<void>;
}

/** Starts the real server on a loopback port over a real SQLite file in a temp folder. */
export async function startTestServer(
  opts: { config?: ConfigOverrides; clock?: Clock; dir?: string; log?: Logger; rateClock?: Clock; rateMaxBuckets?: number } = {},
): Promise<TestServer> {
  const own = opts.dir ? null : tempDir();
  const dir = opts.dir ?? own!.dir;
  const dbPath = join(dir, "formsvc.db");
  const config = loadConfig({}, { db: dbPath, port: 0, logLevel: "silent", ...opts.config });
  const server = await startServer(config, { clock: opts.clock, log: opts.log, rateClock: opts.rateClock, rateMaxBuckets: opts.rateMaxBuckets });
  // The document is asked in-process: over the socket it would take a token from the tests' own address.
  const checked = checkedFetch(async () => (await server.app.handle(new Request(`http://localhost${SPEC_PATH}`))).json());
  const request = (path: string, init: RequestInit & { key?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set("x-api-key", init.key);
    return checked(server.url + path, { ...init, headers });
  };
  let reader: Database | undefined;
  return {
    ...server,
    dbPath,
    dir,
    fetch: checked,
    request,
    async json(path, init) {
      const res = await request(path, init);
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`expected JSON from ${path}, got ${res.status}: ${text.slice(0, 200)}`);
      }
      return { status: res.status, body, headers: res.headers };
    },
    query(sql, ...params) {
      reader ??= new Database(dbPath, { readonly: true });
      return reader.query(sql).all(...params) as any[];
    },
    async close() {
      reader?.close();
      await server.stop();
      own?.cleanup();
    },
  };
}

/** `data` as the server stores it, with the `_meta` of a submitter it knows nothing about: for rows a test writes straight to the file. */
export function storedData(fields: Record<string, unknown>): string {
  const meta = buildMeta({ userAgent: null, acceptLanguage: null, referer: null, origin: null, ip: "192.0.2.1", proxyCountry: null }, () => null);
  return JSON.stringify({ ...fields, _meta: meta });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a command reads on stdin: the given text, else nothing (and never a terminal). */
const stdinOf = (text: string | undefined) => (text === undefined ? "ignore" : new TextEncoder().encode(text));

/** Runs `formsvc` as a subprocess, as an operator would. */
export function runCli(args: string[], opts: { db?: string; env?: Record<string, string>; cwd?: string; stdin?: string } = {}): CliResult {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), FORMSVC_LOG_LEVEL: "silent", ...opts.env };
  if (opts.db) env.FORMSVC_DB = opts.db;
  const res = Bun.spawnSync([process.execPath, MAIN, ...args], { env, cwd: opts.cwd, stdin: stdinOf(opts.stdin), stdout: "pipe", stderr: "pipe" });
  return { code: res.exitCode ?? -1, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

/** runCli without blocking this process: needed when the command talks to a server running in this test process. */
export async function runCliAsync(args: string[], opts: { db?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<CliResult> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), FORMSVC_LOG_LEVEL: "silent", ...opts.env };
  if (opts.db) env.FORMSVC_DB = opts.db;
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { env, stdin: stdinOf(opts.stdin), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** runCli with --json, parsed; fails loudly when the command did. */
export function cliJson<T = any>(args: string[], opts: Parameters<typeof runCli>[1] = {}): T {
  const res = runCli([...args, "--json"], opts);
  if (res.code !== 0) throw new Error(`formsvc ${args.join(" ")} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

/** Owner, key and form made through the services, for tests that are about something else. */
export async function seedOwner(server: RunningServer, email = "owner@example.com", form: { name?: string; formType?: string } & Record<string, unknown> = {}) {
  const key = await server.services.keys.createKey({ owner: email });
  const created = await server.services.forms.createForm({ owner: email, name: "Contact", ...form });
  return { key: key.key, keyId: key.id, formId: created.id, ownerEmail: email, ownerId: created.ownerId };
}

export interface ServeProcess {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  /** fetch that checks every answer against the process's OpenAPI document, as TestServer.fetch. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** Everything printed on stdout so far (the listening line, then JSON log lines). */
  output(): Promise<string>;
  /** All of stdout, once the process has exited. */
  allOutput(): Promise<string>;
}

/** Starts `formsvc serve` as a subprocess on a free port and waits for its "listening on" line. */
export async function spawnServe(db: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0"], {
    env: { ...(process.env as Record<string, string>), FORMSVC_DB: db, FORMSVC_LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  const read = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited: ${out}${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  };
  while (!/listening on (http:\/\/\S+)/.test(out)) await read();
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  // Asked at once: a test may stop the process at any moment after this.
  const doc = await (await fetch(url + SPEC_PATH)).json();
  return {
    proc,
    url,
    fetch: checkedFetch(async () => doc),
    async output() {
      // Whatever arrives within a moment after start-up.
      await Promise.race([read().catch(() => {}), Bun.sleep(200)]);
      return out;
    },
    async allOutput() {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return out;
        out += new TextDecoder().decode(value);
      }
    },
  };
}

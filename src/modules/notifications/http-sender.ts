import http from "node:http";
import https from "node:https";
import { assertPublicUrl, checkedLookup, systemResolver, type Resolver } from "../../lib/public-address";
import { VERSION } from "../../version";

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a receiver answered: its status, the headers a sender acts on, and the start of its body. */
export interface HttpAnswer {
  status: number;
  retryAfter: string | null;
  location: string | null;
  /** At most the first 300 characters, for an error message. */
  body: string;
}

/** POSTs to receivers (webhooks); the outbox's HTTP transport. */
export interface HttpSender {
  post(request: HttpRequest): Promise<HttpAnswer>;
}

export interface HttpSenderOptions {
  timeoutMs: number;
  /** FORMSVC_WEBHOOK_ALLOW_PRIVATE: internal addresses may be reached. */
  allowPrivate: boolean;
  resolve?: Resolver;
}

const BODY_PREVIEW = 300;

/**
 * HTTP(S) POST through node:http, one connection per request: no redirect is ever followed (a 3xx
 * is an answer like any other), the whole exchange up to the response headers must finish within
 * `timeoutMs`, and unless `allowPrivate`, the host is resolved, every address checked, and the
 * socket connects only to a checked one (lib/public-address.ts). TLS is verified against the host
 * name (SNI too), not the address.
 */
export function createHttpSender({ timeoutMs, allowPrivate, resolve = systemResolver }: HttpSenderOptions): HttpSender {
  const lookup = allowPrivate ? undefined : checkedLookup(resolve);
  return {
    async post({ url, headers, body }) {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:") throw new Error(`only http and https URLs are sent to, not ${target.protocol}`);
      // An address literal never goes through a lookup: it is checked here.
      if (!allowPrivate) await assertPublicUrl(target, resolve);
      const client = target.protocol === "https:" ? https : http;
      return new Promise<HttpAnswer>((resolveAnswer, reject) => {
        const request = client.request(
          {
            protocol: target.protocol,
            hostname: target.hostname.replace(/^\[|\]$/g, ""),
            port: target.port || undefined,
            path: `${target.pathname}${target.search}`,
            method: "POST",
            auth: target.username ? `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}` : undefined,
            headers: { "content-type": "application/json", "user-agent": `formsvc/${VERSION}`, connection: "close", "content-length": String(Buffer.byteLength(body)), ...headers },
            agent: false,
            ...(lookup ? { lookup } : {}),
          },
          (response) => {
            let text = "";
            response.setEncoding("utf8");
            const done = () => {
              clearTimeout(timer);
              resolveAnswer({
                status: response.statusCode ?? 0,
                retryAfter: header(response.headers["retry-after"]),
                location: header(response.headers.location),
                body: text.slice(0, BODY_PREVIEW),
              });
              response.destroy();
            };
            response.on("data", (chunk: string) => {
              text += chunk;
              if (text.length >= BODY_PREVIEW) done();
            });
            response.on("end", done);
            response.on("error", done);
          },
        );
        const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
        request.on("error", (e) => {
          clearTimeout(timer);
          reject(e);
        });
        request.end(body);
      });
    },
  };
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));

import type * as Http from "node:http";
import type * as Https from "node:https";
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
  /** Closes the connections kept open for the next request. */
  close(): void;
}

export interface HttpSenderOptions {
  timeoutMs: number;
  /** FORMSVC_WEBHOOK_ALLOW_PRIVATE: internal addresses may be reached. */
  allowPrivate: boolean;
  resolve?: Resolver;
}

const BODY_PREVIEW = 300;
// A receiver's answer is read to its end (so the connection can serve the next request) up to this much.
const MAX_ANSWER_BYTES = 64 * 1024;
// Connections per receiver (host and port), kept open between deliveries: a busy receiver gets them
// over warm connections instead of a handshake each. As many as the outbox has webhook deliveries in
// flight (service.ts), so no request waits in the agent's queue, where its 10 s would run out unsent.
const SOCKETS_PER_HOST = 32;

/**
 * HTTP(S) POST through node:http: no redirect is ever followed (a 3xx is an answer like any other),
 * the whole exchange must finish within `timeoutMs`, and unless `allowPrivate`, the host is
 * resolved, every address checked, and the socket connects only to a checked one
 * (lib/public-address.ts). TLS is verified against the host name (SNI too), not the address.
 * Connections are kept alive between requests to the same receiver; each was opened to a checked
 * address, so reusing it reaches that same address.
 */
export function createHttpSender({ timeoutMs, allowPrivate, resolve = systemResolver }: HttpSenderOptions): HttpSender {
  const lookup = allowPrivate ? undefined : checkedLookup(resolve);
  // Loaded on the first delivery: an instance without webhooks never pays for the HTTP client's memory.
  let clients: { http: typeof Http; https: typeof Https; agents: Record<"http:" | "https:", Http.Agent> } | undefined;
  const load = () => {
    if (clients) return clients;
    const http = require("node:http") as typeof Http;
    const https = require("node:https") as typeof Https;
    const agents = {
      "http:": new http.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
      "https:": new https.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
    };
    return (clients = { http, https, agents });
  };
  return {
    async post({ url, headers, body }) {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:")
        throw new Error(`only http and https URLs are sent to, not ${target.protocol}`);
      // An address literal never goes through a lookup: it is checked here.
      if (!allowPrivate) await assertPublicUrl(target, resolve);
      const { http, https, agents } = load();
      const client = target.protocol === "https:" ? https : http;
      return new Promise<HttpAnswer>((resolveAnswer, reject) => {
        const request = client.request(
          {
            protocol: target.protocol,
            hostname: target.hostname.replace(/^\[|\]$/g, ""),
            port: target.port || undefined,
            path: `${target.pathname}${target.search}`,
            method: "POST",
            auth: target.username
              ? `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
              : undefined,
            headers: {
              "content-type": "application/json",
              "user-agent": `formsvc/${VERSION}`,
              "content-length": String(Buffer.byteLength(body)),
              ...headers,
            },
            agent: agents[target.protocol as "http:" | "https:"],
            ...(lookup ? { lookup } : {}),
          },
          (response) => {
            let text = "";
            let bytes = 0;
            response.setEncoding("utf8");
            const done = () => {
              clearTimeout(timer);
              resolveAnswer({
                status: response.statusCode ?? 0,
                retryAfter: header(response.headers["retry-after"]),
                location: header(response.headers.location),
                body: text,
              });
            };
            response.on("data", (chunk: string) => {
              if (text.length < BODY_PREVIEW) text = (text + chunk).slice(0, BODY_PREVIEW);
              bytes += chunk.length;
              // A receiver that answers at length is not read to the end: the connection is dropped instead.
              if (bytes > MAX_ANSWER_BYTES) {
                done();
                response.destroy();
              }
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
    close() {
      clients?.agents["http:"].destroy();
      clients?.agents["https:"].destroy();
    },
  };
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));

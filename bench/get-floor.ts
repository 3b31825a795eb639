// `bun bench/get-floor.ts [SECONDS] [ROUNDS]`: what a GET costs before any of formsvc's own work, as
// server CPU per request beside bare GET (b): Bun alone answering the contract's headers after
// reading one request header, Elysia with one route, and Elysia with a front like ours (an async
// `onRequest` that reads the key header and sets the seven headers every answer carries, and an
// `onAfterResponse`). Each is this file started with `--serve MODE PORT`, one at a time, in turns.
import { Elysia } from "elysia";
import { BUN, freePort, killAll, log, median, startServer, wrk } from "./harness";

const BODY = { id: "frm_constant", name: "Contact", description: "", submissionCount: 0 };
const TEXT = JSON.stringify(BODY);
const JSON_TYPE = "application/json;charset=utf-8";
const MODES = ["bare", "bun-headers", "elysia", "elysia-front"] as const;

/** The headers every formsvc answer carries (http/front.ts), with made-up values. */
function answerHeaders(headers: Record<string, string>, i: number): void {
  headers["x-content-type-options"] = "nosniff";
  headers["x-frame-options"] = "DENY";
  headers["cache-control"] = "no-store";
  headers["x-request-id"] = `req_${Bun.randomUUIDv7("base64url")}`;
  headers["x-ratelimit-limit"] = "120";
  headers["x-ratelimit-remaining"] = String(119 - (i % 120));
  headers["x-ratelimit-reset"] = "1764000000";
}

function serve(mode: (typeof MODES)[number], port: number): void {
  let i = 0;
  if (mode === "bare" || mode === "bun-headers") {
    Bun.serve({
      port,
      hostname: "127.0.0.1",
      fetch(request) {
        if (mode === "bare") return Response.json(BODY);
        request.headers.get("x-api-key");
        const headers: Record<string, string> = { "content-type": JSON_TYPE };
        answerHeaders(headers, i++);
        return new Response(TEXT, { headers });
      },
    });
  } else {
    const app = new Elysia();
    if (mode === "elysia-front")
      app
        .onRequest(async ({ request, set }) => {
          request.headers.get("x-api-key");
          answerHeaders(set.headers as Record<string, string>, i++);
        })
        .onAfterResponse(({ set }) => void set.status);
    app.get("/api/v1/forms/:formId", ({ set }) => {
      set.headers["content-type"] = JSON_TYPE;
      return TEXT;
    });
    app.listen({ port, hostname: "127.0.0.1" });
  }
}

if (process.argv[2] === "--serve") {
  serve(process.argv[3] as (typeof MODES)[number], Number(process.argv[4]));
} else {
  const [seconds, rounds] = [Number(process.argv[2] ?? 3), Number(process.argv[3] ?? 2)];
  const cpu: Record<string, number[]> = {};
  try {
    for (let r = 0; r < rounds; r++)
      for (const mode of r % 2 ? [...MODES].reverse() : MODES) {
        const port = await freePort();
        const server = await startServer([BUN, "bench/get-floor.ts", "--serve", mode, `${port}`], port);
        const url = `http://127.0.0.1:${port}${mode === "bare" ? "/" : "/api/v1/forms/frm_constant"}`;
        const headers = ["X-API-Key: fsk_constant"];
        await wrk(url, { headers, durationS: 1 });
        (cpu[mode] ??= []).push((await wrk(url, { headers, durationS: seconds, pid: server.pid })).cpuUs!);
        server.kill();
        await server.exited;
      }
    const bare = median(cpu.bare!);
    for (const mode of MODES)
      log(
        `${mode}: server CPU ${median(cpu[mode]!).toFixed(2)} µs/req [${cpu[mode]!.map((x) => x.toFixed(1)).join(" ")}]; (b)/this ${(bare / median(cpu[mode]!)).toFixed(2)}`,
      );
  } finally {
    killAll();
  }
}

// `bun bench/load.ts URL BODIES_FILE HEADERS_JSON [CONNECTIONS]`: POSTs each line of BODIES_FILE
// once to URL (127.0.0.1 only), CONNECTIONS at a time, and prints {requests, seconds, rps, p50, p99,
// statuses} as JSON. For load that wrk cannot give: every request a different body, each used once
// (a solved proof of work is accepted once), and a bounded number of requests (wrk's Lua can stop a
// thread, but wrk then still waits out its duration and divides by it).
const [url, bodiesFile, headersJson, connections = "64"] = process.argv.slice(2);
if (!url?.startsWith("http://127.0.0.1:") || !bodiesFile || !headersJson)
  throw new Error("usage: bun bench/load.ts http://127.0.0.1:PORT/path BODIES_FILE HEADERS_JSON [CONNECTIONS]");
const bodies = (await Bun.file(bodiesFile).text()).split("\n").filter((line) => line !== "");
const headers = JSON.parse(headersJson) as Record<string, string>;

const latencies = new Float64Array(bodies.length);
const statuses: Record<number, number> = {};
let next = 0;

async function connection() {
  for (let i = next++; i < bodies.length; i = next++) {
    const t0 = performance.now();
    const res = await fetch(url!, { method: "POST", headers, body: bodies[i] });
    await res.arrayBuffer();
    latencies[i] = performance.now() - t0;
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
}

const start = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, connection));
const seconds = (performance.now() - start) / 1000;
const sorted = latencies.sort();
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
console.log(
  JSON.stringify({
    requests: bodies.length,
    seconds,
    rps: bodies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    statuses,
  }),
);

export {};

// Webhook receivers on loopback for bench/run.ts. `answer`: 200 to every POST, GET /count says how
// many came. `silent`: accepts connections and never answers, so a sender's deliveries just wait
// (10 s, then a retry 5 s later): a submit measured against it pays for queuing, not for sending.
const [port, mode] = [Number(process.argv[2]), process.argv[3] ?? "answer"];
if (mode === "silent") {
  Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
} else {
  let received = 0;
  Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method === "GET") return Response.json({ received });
      await req.arrayBuffer();
      received += 1;
      return new Response("ok");
    },
  });
}
console.log(`listening on ${port}`);

export {};

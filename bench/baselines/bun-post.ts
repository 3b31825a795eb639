// Baseline (a): the practical limit for our submit — parse a JSON POST, check its shape, answer a constant.
const port = Number(process.argv[2]);
Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json().catch(() => ({}))) as { formId?: unknown; data?: unknown };
    if (typeof body.formId !== "string" || typeof body.data !== "object" || body.data === null)
      return Response.json({ error: "bad" }, { status: 400 });
    return Response.json({ success: true, submissionId: "sub_constant" });
  },
});
console.log(`listening on ${port}`);

export {};

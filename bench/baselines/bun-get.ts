// Baseline (b): the practical limit for our GETs — a constant JSON answer.
const port = Number(process.argv[2]);
const body = { id: "frm_constant", name: "Contact", description: "", submissionCount: 0 };
Bun.serve({ port, hostname: "127.0.0.1", fetch: () => Response.json(body) });
console.log(`listening on ${port}`);

export {};

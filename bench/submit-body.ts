// `bun bench/submit-body.ts [module …]`: the CPU time of reading a typical JSON submit body (decode,
// parse, check) without HTTP or the database. Each module must export `parseJsonBody(bytes)`; the
// default is the reader in src. Give two copies (say, one from `git show HEAD~1:…`) to compare them:
// their rounds alternate in one process, so a noisy neighbour slows both alike.
import { resolve } from "node:path";

type Parse = (bytes: Uint8Array) => unknown;
const paths =
  process.argv.length > 2 ? process.argv.slice(2) : [`${import.meta.dir}/../src/modules/submissions/read-body.ts`];
const readers: [string, Parse][] = [];
for (const p of paths) readers.push([p, ((await import(resolve(p))) as { parseJsonBody: Parse }).parseJsonBody]);
const utf8 = new TextDecoder("utf-8", { fatal: true });
// The floor: what any reader pays to decode and parse, before checking anything.
readers.push(["JSON.parse alone", (bytes) => JSON.parse(utf8.decode(bytes))]);

const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const data = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Hello",
  message: "I would like to hear more about the analytical engine. ".repeat(3),
  rating: 5,
  newsletter: true,
  topics: ["math", "engines"],
};
const bodies = {
  "contact form": encode({ formId: "frm_0196f6e1c2a87a3b9d5e4f1a2b3c4d5e", data }),
  "with redirectUrl": encode({
    formId: "frm_0196f6e1c2a87a3b9d5e4f1a2b3c4d5e",
    data,
    redirectUrl: "https://www.example.com/thanks?from=contact",
  }),
};

const ROUNDS = 25;
const PER_ROUND = 100_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const [name, bytes] of Object.entries(bodies)) {
  const times = readers.map(() => [] as number[]);
  for (const [, parse] of readers) for (let i = 0; i < 50_000; i++) parse(bytes); // warm up the JIT
  for (let r = 0; r < ROUNDS; r++) {
    readers.forEach(([, parse], k) => {
      const start = Bun.nanoseconds();
      for (let i = 0; i < PER_ROUND; i++) parse(bytes);
      times[k]!.push((Bun.nanoseconds() - start) / PER_ROUND);
    });
  }
  console.log(`${name} (${bytes.byteLength} B), ns per body:`);
  readers.forEach(([label], k) =>
    console.log(
      `  median ${median(times[k]!).toFixed(0).padStart(5)}  min ${Math.min(...times[k]!)
        .toFixed(0)
        .padStart(5)}  ${label}`,
    ),
  );
}

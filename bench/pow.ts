// `bun bench/pow.ts [challenges]`: what the proof of work costs. The solver's time with altcha-lib's
// own solver (node:crypto and WebCrypto, the latter as in browsers), single-threaded, over fresh
// challenges at the configured FORMSVC_POW_MAX_COUNTER; the server's CPU to issue one challenge and
// to verify one solution (altcha-lib's verifySolution alone, and the whole check with its insert).
import { solveChallenge, verifySolution, type Payload } from "altcha-lib";
import { deriveKey as nodeDeriveKey } from "altcha-lib/algorithms/pbkdf2";
import { deriveKey as webDeriveKey } from "altcha-lib/algorithms/web/pbkdf2";
import { cpus } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { openStore } from "../src/db/store";
import { systemClock } from "../src/lib/clock";
import { createPowService, POW_ITERATIONS, powSecrets } from "../src/modules/spam/pow";
import { createSpamRepo } from "../src/modules/spam/repo";
import { tempDir } from "../test/helpers/harness";

const CHALLENGES = Number(process.argv[2] ?? 60);
const VERIFICATIONS = 2000;
const config = loadConfig();
const { dir, cleanup } = tempDir();
const store = await openStore(join(dir, "pow.db"));
const repo = createSpamRepo(store.sql);
const challengeSecret = await repo.findChallengeSecret();
const pow = createPowService({ repo, challengeSecret, clock: systemClock, maxCounter: config.powMaxCounter });
const secrets = powSecrets(challengeSecret);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return `mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(1)} ms, p50 ${at(0.5).toFixed(1)}, p90 ${at(0.9).toFixed(1)}, max ${s[s.length - 1]!.toFixed(1)}`;
};

console.log(
  `${cpus().length} × ${cpus()[0]?.model}; PBKDF2/SHA-256, ${POW_ITERATIONS} iterations per derivation, counter uniform in 0..${config.powMaxCounter}`,
);

let cpu = cpuMs();
const challenges = await Promise.all(Array.from({ length: CHALLENGES }, () => pow.createChallenge("frm_bench")));
console.log(`issue a challenge: ${((cpuMs() - cpu) / CHALLENGES).toFixed(3)} ms CPU each`);

const payloads: string[] = [];
const solved: Payload[] = [];
for (const [name, deriveKey] of [
  ["node:crypto", nodeDeriveKey],
  ["WebCrypto", webDeriveKey],
] as const) {
  const times: number[] = [];
  let derivations = 0;
  for (const challenge of challenges) {
    const start = performance.now();
    const solution = (await solveChallenge({ challenge, deriveKey }))!;
    times.push(performance.now() - start);
    derivations += solution.counter + 1;
    if (name === "node:crypto") {
      const payload = { challenge: { parameters: challenge.parameters, signature: challenge.signature }, solution };
      solved.push(payload);
      payloads.push(btoa(JSON.stringify(payload)));
    }
  }
  console.log(
    `solve (${name}, one thread): ${stats(times)}; ${(times.reduce((a, b) => a + b, 0) / derivations).toFixed(3)} ms per derivation`,
  );
}

cpu = cpuMs();
let start = performance.now();
for (let i = 0; i < VERIFICATIONS; i++) {
  const p = solved[i % solved.length]!;
  const r = await verifySolution({
    challenge: p.challenge,
    solution: p.solution,
    deriveKey: nodeDeriveKey,
    ...secrets,
  });
  if (!r.verified) throw new Error("a solved challenge did not verify");
}
console.log(
  `verifySolution: ${((cpuMs() - cpu) / VERIFICATIONS).toFixed(3)} ms CPU, ${((performance.now() - start) / VERIFICATIONS).toFixed(3)} ms wall each (${VERIFICATIONS} in a loop)`,
);

cpu = cpuMs();
start = performance.now();
for (const payload of payloads) {
  const outcome = await pow.verify("frm_bench", payload);
  // A refusal is its reason; an accepted solution comes back as the record to store.
  if (typeof outcome === "string") throw new Error(`refused: ${outcome}`);
}
console.log(
  `the whole check (decode, shape, used?, verify, mark used): ${((cpuMs() - cpu) / payloads.length).toFixed(3)} ms CPU, ${((performance.now() - start) / payloads.length).toFixed(3)} ms wall each`,
);
await store.close();
cleanup();

// `bun bench/password.ts [runs]`: what a password costs. One argon2id hash (set-password, and a
// login's rehash) and one verification (every login, also of an unknown email against the dummy
// hash), one at a time, wall time; then logins checked at once, as a burst of them would be.
import { cpus } from "node:os";
import { DUMMY_HASH, hashPassword, verifyPassword } from "../src/modules/accounts/password";

const RUNS = Number(process.argv[2] ?? 30);
const PASSWORD = "correct horse battery staple";

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1);
  return `median ${at(0.5)} ms, p90 ${at(0.9)} ms`;
};
const timed = async (fn: () => Promise<unknown>) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

await hashPassword(PASSWORD); // warm-up
const hashes: number[] = [];
for (let i = 0; i < RUNS; i++) hashes.push(await timed(() => hashPassword(PASSWORD)));
const verifies: number[] = [];
for (let i = 0; i < RUNS; i++) verifies.push(await timed(() => verifyPassword(PASSWORD, DUMMY_HASH)));

console.log(
  `argon2id ${DUMMY_HASH.split("$")[3]} on ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${RUNS} runs each`,
);
console.log(`hash:   ${stats(hashes)}`);
console.log(`verify: ${stats(verifies)}`);
for (const parallel of [4, 16]) {
  const ms = await timed(() =>
    Promise.all(Array.from({ length: parallel }, () => verifyPassword(PASSWORD, DUMMY_HASH))),
  );
  console.log(
    `${parallel} logins at once: ${ms.toFixed(0)} ms in all, ${((parallel / ms) * 1000).toFixed(0)} logins/s`,
  );
}

import { expect, test } from "bun:test";
import { groupCommit } from "../../src/db/group-commit";

const COMMIT_MS = 20;

/** A group commit over a commit that takes COMMIT_MS, recording each batch's size. */
function recorded(gather: boolean) {
  const sizes: number[] = [];
  const batches = groupCommit<number>(
    async (items) => {
      sizes.push(items.length);
      await Bun.sleep(COMMIT_MS);
      return items.map(() => null);
    },
    { gather },
  );
  return { batches, sizes };
}

/** `clients` writers, each writing again 1–4 ms after it is answered (an HTTP client's round trip), until `total` writes are sent. */
async function closedLoop(write: (n: number) => Promise<void>, clients: number, total: number): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      while (sent < total) {
        await write(sent++);
        await Bun.sleep(1 + (i % 4));
      }
    }),
  );
}

test.each([
  // Without gathering, the batch goes as soon as the last commit ends, with whoever came back by then.
  { gather: false, mean: [1, 20] },
  // Gathering waits (at most one commit's time) for the writers the last commit answered.
  { gather: true, mean: [26, 32] },
])(
  "32 writers in a closed loop share commits of the mean size expected with gather $gather",
  async ({ gather, mean }) => {
    const { batches, sizes } = recorded(gather);
    await closedLoop((n) => batches.write(n), 32, 32 * 15);
    await batches.drain();
    // The first batches form while the loop starts; the steady state is what is measured.
    const steady = sizes.slice(3, -2);
    const average = steady.reduce((a, b) => a + b, 0) / steady.length;
    expect(average).toBeGreaterThanOrEqual(mean[0]!);
    expect(average).toBeLessThanOrEqual(mean[1]!);
  },
);

test("a write that finds nothing committing is committed at once, not after a gathering wait", async () => {
  const { batches, sizes } = recorded(true);
  const t0 = performance.now();
  await batches.write(1);
  expect(performance.now() - t0).toBeLessThan(COMMIT_MS * 1.9);
  expect(sizes).toEqual([1]);
});

test("a batch gathered while writers do not come back waits for them as long as one commit took, then goes alone", async () => {
  const { batches, sizes } = recorded(true);
  // The first commit holds one write; the second write arrives meanwhile and waits for the first's
  // writer to come back, which never writes again: it waits one commit's time, then goes alone.
  const first = batches.write(1);
  await Bun.sleep(1);
  const second = batches.write(2);
  await first;
  const answered = performance.now();
  await second;
  const waited = performance.now() - answered - COMMIT_MS;
  expect(sizes).toEqual([1, 1]);
  // A timer never fires early, so the wait is at least the commit's time; no upper bound is asserted,
  // as timers fire late on a busy machine.
  expect(waited).toBeGreaterThanOrEqual(COMMIT_MS * 0.8);
});

test("an afterCommit hook that throws is reported, not left as an unhandled rejection, and later batches still go", async () => {
  const unhandled: unknown[] = [];
  const printed: unknown[][] = [];
  const onUnhandled = (e: unknown) => void unhandled.push(e);
  const print = console.error;
  process.on("unhandledRejection", onUnhandled);
  console.error = (...args: unknown[]) => void printed.push(args);
  try {
    let calls = 0;
    const batches = groupCommit<number>(async (items) => items.map(() => null), {
      afterCommit: () => {
        if (++calls === 1) throw new Error("hook broke");
      },
    });
    await batches.write(1);
    await batches.write(2);
    await batches.drain();
    await Bun.sleep(10);
    expect(calls).toBe(2);
    expect(unhandled).toEqual([]);
    expect(printed.map((args) => String(args.at(-1)))).toEqual(["Error: hook broke"]);
  } finally {
    console.error = print;
    process.off("unhandledRejection", onUnhandled);
  }
});

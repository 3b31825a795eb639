import { heapSize } from "bun:jsc";

// How often the heap is looked at: one `heapSize()` (~1 µs), and under load one RSS read (~20 µs).
const TICK_MS = 100;
// Above the soft mark under load the collector is asked to run now (concurrently) rather than when
// the heap has doubled; above the hard mark a full collection runs at once (~20-30 ms of pause
// here, so at most one per FULL_EVERY_MS). Either alone did worse: the concurrent one alone held
// a submit load at 141 MB instead of 145, the full one alone at 124-130 MB, with a third more CPU
// per submit (larger, more frequent full collections); together 121 MB at +2.5 % CPU.
const SOFT_LIMIT_BYTES = 96 * 1024 * 1024;
const HARD_LIMIT_BYTES = 112 * 1024 * 1024;
const FULL_EVERY_MS = 500;
// The heap grew by more than this since the last look: requests are being served.
const ACTIVE_GROWTH_BYTES = 1024 * 1024;
// Ticks without growth after activity before the heap is collected in full, once.
const IDLE_TICKS = 10;

/**
 * Keeps the server's memory near what it holds live. JavaScriptCore lets its heap grow to about
 * twice what survived the last full collection, sized against the machine's RAM, not ours (and
 * Bun offers no bound on it from inside the process): under 64 connections a server's RSS rose
 * to ~150 MB on garbage alone, and after the load it kept the pages. Under load this collects
 * sooner (the marks above); once the load stops, one full collection gives the garbage back.
 */
export function governMemory(): { stop(): void } {
  // One governor per process, however many servers it runs (the tests run many).
  governor ??= startGovernor();
  users++;
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      if (--users === 0) {
        clearInterval(governor);
        governor = undefined;
      }
    },
  };
}

let governor: Timer | undefined;
let users = 0;

function startGovernor(): Timer {
  let last = heapSize();
  // Start-up leaves garbage too: the first quiet second collects it.
  let active = true;
  let quietTicks = 0;
  let lastFull = 0;
  return setInterval(() => {
    const size = heapSize();
    if (size > last + ACTIVE_GROWTH_BYTES) {
      active = true;
      quietTicks = 0;
    } else if (active && ++quietTicks >= IDLE_TICKS) {
      active = false;
      Bun.gc(true);
      last = heapSize();
      return;
    }
    if (size > last + ACTIVE_GROWTH_BYTES || size < last) last = size;
    if (!active) return;
    const rss = process.memoryUsage.rss();
    if (rss > HARD_LIMIT_BYTES && performance.now() - lastFull >= FULL_EVERY_MS) {
      Bun.gc(true);
      lastFull = performance.now();
    } else if (rss > SOFT_LIMIT_BYTES) Bun.gc(false);
  }, TICK_MS).unref();
}

import { edenGC, heapSize } from "bun:jsc";

// How often the heap is looked at: one `heapSize()` (~1 µs), and under load one RSS read (~20 µs).
const TICK_MS = 100;
// Above the soft mark under load the young generation is collected at every look (an eden
// collection, a short pause): most of a request's garbage dies young, and is reused instead of growing the
// heap. Above the hard mark a full collection runs (~20-30 ms of pause here), at most one per
// FULL_EVERY_MS, rare enough to stay out of the 99th percentile. Measured on a submit load (64
// connections, in turns): full collections from 112 MB (every 500 ms) held it at 116-119 MB with a
// p99 of 11-19 ms; eden collections alone, 129 MB at 8-9 ms; both, as here, 120 MB at 8-10 ms.
const SOFT_LIMIT_BYTES = 80 * 1024 * 1024;
const HARD_LIMIT_BYTES = 120 * 1024 * 1024;
const FULL_EVERY_MS = 3000;
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
    } else if (rss > SOFT_LIMIT_BYTES) edenGC();
  }, TICK_MS).unref();
}

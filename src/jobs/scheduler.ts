import type { Logger } from "../lib/log";

/**
 * Background work on a fixed grid of UTC time: every `everyMs`, `atMs` past each multiple of it
 * since the epoch (an hourly job at minute 17: every hour, at 17 minutes). UTC, because local
 * time loads the time zone data (~50 ms and ~4 MB at start, which a cron library cost us), and
 * no job cares which hour it is where the server stands.
 */
export interface Job {
  name: string;
  everyMs: number;
  atMs?: number;
  run(): void | Promise<void>;
}

export interface Scheduler {
  /** Stops every schedule and waits for runs in progress. */
  stop(): Promise<void>;
}

/** The first time after `now` that falls `atMs` past a multiple of `everyMs`. */
export function nextRun(job: Pick<Job, "everyMs" | "atMs">, now: number): number {
  const at = job.atMs ?? 0;
  return Math.floor((now - at) / job.everyMs) * job.everyMs + at + job.everyMs;
}

// A timer never waits longer than this before it looks at the clock again, so a clock set
// forwards or back (or a suspended machine) moves the next run with it.
const MAX_WAIT_MS = 30_000;

/**
 * Runs each job on its schedule, never twice at once in this process; `alone` keeps processes
 * sharing a database from running the same job together (Store.runAlone): one run per cluster.
 */
export function startJobs(jobs: Job[], log: Logger, alone: (name: string, fn: () => Promise<void>) => Promise<boolean> = async (_, fn) => (await fn(), true)): Scheduler {
  for (const job of jobs) {
    if (!(job.everyMs >= 1000 && (job.atMs ?? 0) >= 0 && (job.atMs ?? 0) < job.everyMs)) throw new Error(`job ${job.name}: everyMs must be ≥ 1000 and atMs in [0, everyMs)`);
  }
  const running = new Map<string, Promise<void>>();
  const timers = new Map<string, Timer>();
  let stopped = false;

  const runOnce = (job: Job): Promise<void> => {
    const current = running.get(job.name);
    if (current) return current;
    const run = (async () => {
      try {
        await alone(job.name, async () => void (await job.run()));
      } catch (e) {
        log.error("job failed", { job: job.name, error: e instanceof Error ? e.message : String(e) });
      } finally {
        running.delete(job.name);
      }
    })();
    running.set(job.name, run);
    return run;
  };

  const schedule = (job: Job, due: number): void => {
    const tick = () => {
      if (stopped) return;
      const now = Date.now();
      if (now >= due) void runOnce(job);
      // Due, or the clock went back by more than a period: on to the next point of the grid.
      if (now >= due || due - now > job.everyMs) schedule(job, nextRun(job, now));
      else schedule(job, due);
    };
    timers.set(job.name, setTimeout(tick, Math.min(due - Date.now(), MAX_WAIT_MS)).unref());
  };
  for (const job of jobs) schedule(job, nextRun(job, Date.now()));

  return {
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      await Promise.all(running.values());
    },
  };
}

import type { Logger } from "../lib/log";

/** Background work on a croner schedule in UTC (seconds field allowed, e.g. every 5 s: "*\/5 * * * * *"). */
export interface Job {
  name: string;
  schedule: string;
  run(): void | Promise<void>;
}

export interface Scheduler {
  /** Runs a job now, as its schedule would (once per cluster; joined to a run in progress); for tests with a pinned clock. */
  run(name: string): Promise<void>;
  /** Stops every schedule and waits for runs in progress. */
  stop(): Promise<void>;
}

/** The first whole second strictly after `after` (ms since the epoch) that a schedule names, or null for never. */
export type NextRun = (after: number) => number | null;

// The longest one timer waits before it looks at the clock again (as croner does): a clock set
// forward, or a machine that slept, is noticed within this.
const MAX_WAIT_MS = 30_000;

/** The seconds a field of a cron pattern names within 0..size-1, or null for what the simple reader does not take. */
function fieldValues(field: string, size: number): boolean[] | null {
  const on: boolean[] = Array(size).fill(false);
  for (const part of field.split(",")) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return null;
    const from = m[1] === "*" ? 0 : Number(m[2]);
    const to = m[1] === "*" ? size - 1 : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? size - 1 : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from > to || to >= size || step < 1) return null;
    for (let v = from; v <= to; v += step) on[v] = true;
  }
  return on;
}

/**
 * The next run of a pattern whose day, month and weekday fields are all `*` (every job of ours),
 * in UTC, or null when the pattern says more than that (croner reads those). A few dozen steps at
 * most: to the next matching hour, then minute, then second.
 */
export function simpleNextRun(pattern: string): NextRun | null {
  const parts = pattern.trim().split(/\s+/);
  if (parts.length === 5) parts.unshift("0");
  if (parts.length !== 6 || parts.slice(3).some((p) => p !== "*")) return null;
  const [second, minute, hour] = [fieldValues(parts[0]!, 60), fieldValues(parts[1]!, 60), fieldValues(parts[2]!, 24)];
  if (!second || !minute || !hour || !second.includes(true) || !minute.includes(true) || !hour.includes(true))
    return null;
  return (after) => {
    let t = Math.floor(after / 1000) * 1000 + 1000;
    // Within two days every hour has come round; the bound only guards the loop.
    for (const end = t + 2 * 86_400_000; t < end;) {
      const d = new Date(t);
      if (!hour[d.getUTCHours()]) t = Math.floor(t / 3_600_000) * 3_600_000 + 3_600_000;
      else if (!minute[d.getUTCMinutes()]) t = Math.floor(t / 60_000) * 60_000 + 60_000;
      else if (!second[d.getUTCSeconds()]) t += 1000;
      else return t;
    }
    return null;
  };
}

/** A schedule's next runs: ours read here; any other (FORMSVC_BACKUP_SCHEDULE) by croner, loaded only then. */
async function nextRunOf(pattern: string): Promise<NextRun> {
  const simple = simpleNextRun(pattern);
  if (simple) return simple;
  const { Cron } = await import("croner");
  // Paused, with no function: croner computes the dates and starts no timer of its own.
  const cron = new Cron(pattern, { paused: true, utcOffset: 0 });
  return (after) => cron.nextRun(new Date(after))?.getTime() ?? null;
}

/**
 * Runs each job on its schedule, never twice at once in this process; `alone` keeps processes
 * sharing a database from running the same job together (Store.runAlone): one run per cluster.
 * One timer for all of them, set for the soonest run: a timer and croner's 10,000-entry year table
 * per job held ~2.5 MB of an idle server's memory.
 */
export function startJobs(
  jobs: Job[],
  log: Logger,
  alone: (name: string, fn: () => Promise<void>) => Promise<boolean> = async (_, fn) => (await fn(), true),
): Scheduler {
  const running = new Map<string, Promise<void>>();

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

  let stopped = false;
  let timer: Timer | undefined;
  const planned: { job: Job; next: NextRun; due: number | null }[] = [];

  const tick = () => {
    timer = undefined;
    if (stopped) return;
    const now = Date.now();
    for (const p of planned) {
      if (p.due === null || p.due > now) continue;
      void runOnce(p.job);
      p.due = p.next(now);
    }
    arm();
  };
  const arm = () => {
    let soonest = Infinity;
    for (const p of planned) if (p.due !== null && p.due < soonest) soonest = p.due;
    if (soonest === Infinity) return;
    timer = setTimeout(tick, Math.min(Math.max(soonest - Date.now(), 0), MAX_WAIT_MS));
    timer.unref();
  };

  const ready = (async () => {
    for (const job of jobs) {
      const next = await nextRunOf(job.schedule);
      planned.push({ job, next, due: next(Date.now()) });
    }
    if (!stopped) arm();
  })().catch((e: unknown) => {
    // The schedules were checked when the configuration was read: this is a bug, and no job would run.
    log.error("jobs not scheduled", { error: e instanceof Error ? e.message : String(e) });
  });

  return {
    run(name) {
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      return runOnce(job);
    },
    async stop() {
      stopped = true;
      await ready;
      if (timer) clearTimeout(timer);
      await Promise.all(running.values());
    },
  };
}

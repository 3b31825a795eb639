import { Cron } from "croner";
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

/**
 * Runs each job on its schedule, never twice at once in this process; `alone` keeps processes
 * sharing a database from running the same job together (Store.runAlone): one run per cluster.
 * With `timed` false, jobs run only when `run` is called (a test on a clock of its own).
 */
export function startJobs(
  jobs: Job[],
  log: Logger,
  alone: (name: string, fn: () => Promise<void>) => Promise<boolean> = async (_, fn) => (await fn(), true),
  timed = true,
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

  // UTC: local time would load the time zone data at start (~50 ms and ~4 MB), and no job cares
  // which hour it is where the server stands.
  const crons = timed
    ? jobs.map((job) => new Cron(job.schedule, { unref: true, utcOffset: 0 }, () => runOnce(job)))
    : [];

  return {
    run(name) {
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      return runOnce(job);
    },
    async stop() {
      for (const cron of crons) cron.stop();
      await Promise.all(running.values());
    },
  };
}

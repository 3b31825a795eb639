import { Cron } from "croner";
import type { Logger } from "../lib/log";

/** Background work on a croner schedule (seconds field allowed, e.g. every 5 s: "*\/5 * * * * *"). */
export interface Job {
  name: string;
  schedule: string;
  run(): void | Promise<void>;
}

export interface Scheduler {
  /** Stops every schedule and waits for runs in progress. */
  stop(): Promise<void>;
}

export function startJobs(jobs: Job[], log: Logger): Scheduler {
  const running = new Map<string, Promise<void>>();

  const runOnce = (job: Job): Promise<void> => {
    const current = running.get(job.name);
    if (current) return current;
    const run = (async () => {
      try {
        await job.run();
      } catch (e) {
        log.error("job failed", { job: job.name, error: e instanceof Error ? e.message : String(e) });
      } finally {
        running.delete(job.name);
      }
    })();
    running.set(job.name, run);
    return run;
  };

  const crons = jobs.map((job) => new Cron(job.schedule, { unref: true }, () => runOnce(job)));

  return {
    async stop() {
      for (const cron of crons) cron.stop();
      await Promise.all(running.values());
    },
  };
}

import { describe, expect, test } from "bun:test";
import { Cron } from "croner";
import { createJobs } from "../../src/jobs";
import { simpleNextRun, startJobs } from "../../src/jobs/scheduler";
import { silentLogger } from "../../src/lib/log";
import type { Services } from "../../src/services";

// Every schedule `serve` runs (the services are not called: only the schedules are read), and a few more shapes.
const jobSchedules = [...createJobs({ backups: {} } as Services, "postgres").map((j) => j.schedule)];
const patterns = [...new Set([...jobSchedules, "*/7 * * * * *", "15,45 */20 1-5 * * *", "0 0 * * *", "0 30 23 * * *"])];
const instants = [
  Date.UTC(2026, 0, 1, 0, 0, 0),
  Date.UTC(2026, 1, 28, 23, 59, 59, 999),
  Date.UTC(2028, 1, 29, 3, 16, 59, 500),
  Date.UTC(2026, 11, 31, 23, 59, 30),
  Date.UTC(2026, 5, 15, 8, 0, 0, 1),
  ...Array.from({ length: 50 }, (_, i) => Date.UTC(2026, 0, 1) + Math.floor(((i * 7919) % 1000) * 31_536_000.123)),
];

describe("the scheduler's own reading of a schedule", () => {
  test("names the same next run as croner, for every job's schedule and others, at many instants", () => {
    expect(jobSchedules.length).toBeGreaterThan(10);
    for (const pattern of patterns) {
      const next = simpleNextRun(pattern);
      expect(next).not.toBeNull();
      const cron = new Cron(pattern, { paused: true, utcOffset: 0 });
      for (const at of instants) expect([pattern, next!(at)]).toEqual([pattern, cron.nextRun(new Date(at))!.getTime()]);
    }
  });

  test("leaves to croner a pattern that names days, months or weekdays, or that it does not read", () => {
    for (const pattern of ["0 0 8 * * 1", "0 0 1 1 *", "0 0 0 L * *", "@daily", "0 0 */0 * * *", "0 61 * * * *"])
      expect([pattern, simpleNextRun(pattern)]).toEqual([pattern, null]);
  });
});

describe("jobs", () => {
  const cases = [
    { name: "every second (ours)", schedule: "* * * * * *" },
    { name: "every second on any weekday (croner's)", schedule: "* * * * * 0-6" },
  ];
  for (const c of cases)
    test(`run on their schedule with one timer, and not after stop: ${c.name}`, async () => {
      let runs = 0;
      const jobs = startJobs([{ name: "count", schedule: c.schedule, run: () => void runs++ }], silentLogger);
      const deadline = Date.now() + 3000;
      while (runs < 2 && Date.now() < deadline) await Bun.sleep(50);
      expect(runs).toBeGreaterThanOrEqual(2);
      await jobs.stop();
      const after = runs;
      await Bun.sleep(1200);
      expect(runs).toBe(after);
    });

  test("a job still running when its time comes again is not started twice", async () => {
    let started = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const jobs = startJobs(
      [{ name: "slow", schedule: "* * * * * *", run: async () => void (started++, await held) }],
      silentLogger,
    );
    await Bun.sleep(2600);
    expect(started).toBe(1);
    release();
    await jobs.stop();
  });
});

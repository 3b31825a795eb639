import { describe, expect, test } from "bun:test";
import { createJobs } from "../../src/jobs";
import { nextRun, startJobs } from "../../src/jobs/scheduler";
import { silentLogger } from "../../src/lib/log";
import type { Services } from "../../src/services";

const at = (iso: string) => Date.parse(iso);

describe("job schedules", () => {
  test("the next run is the next point of the job's UTC grid, strictly after now", () => {
    const hourlyAt17 = { everyMs: 3_600_000, atMs: 17 * 60_000 };
    expect(new Date(nextRun(hourlyAt17, at("2026-11-24T10:05:00.000Z"))).toISOString()).toBe("2026-11-24T10:17:00.000Z");
    expect(new Date(nextRun(hourlyAt17, at("2026-11-24T10:17:00.000Z"))).toISOString()).toBe("2026-11-24T11:17:00.000Z");
    expect(new Date(nextRun(hourlyAt17, at("2026-11-24T10:30:00.000Z"))).toISOString()).toBe("2026-11-24T11:17:00.000Z");
    const dailyAt0317 = { everyMs: 86_400_000, atMs: (3 * 60 + 17) * 60_000 };
    expect(new Date(nextRun(dailyAt0317, at("2026-12-31T23:59:59.999Z"))).toISOString()).toBe("2027-01-01T03:17:00.000Z");
    expect(new Date(nextRun({ everyMs: 5000 }, at("2026-11-24T10:00:03.000Z"))).toISOString()).toBe("2026-11-24T10:00:05.000Z");
  });

  test("every job of `serve` has a schedule the scheduler takes", async () => {
    const jobs = createJobs({} as Services);
    expect(jobs.length).toBeGreaterThan(5);
    const scheduler = startJobs(jobs, silentLogger);
    await scheduler.stop();
    for (const job of jobs) expect(nextRun(job, 0)).toBeGreaterThan(0);
  });

  test("a schedule outside its period is refused", () => {
    expect(() => startJobs([{ name: "bad", everyMs: 60_000, atMs: 60_000, run: () => {} }], silentLogger)).toThrow("atMs");
  });

  test("a job runs on its schedule, never twice at once, and not after stop", async () => {
    let runs = 0;
    let overlapping = 0;
    let inRun = false;
    let firstRun!: () => void;
    const ran = new Promise<void>((resolve) => (firstRun = resolve));
    const scheduler = startJobs(
      [
        {
          name: "tick",
          everyMs: 1000,
          run: async () => {
            if (inRun) overlapping++;
            inRun = true;
            runs++;
            firstRun();
            await Bun.sleep(1500); // longer than its period: the next tick finds it still running
            inRun = false;
          },
        },
      ],
      silentLogger,
    );
    await ran;
    await Bun.sleep(1200);
    await scheduler.stop();
    const stoppedAt = runs;
    await Bun.sleep(1200);
    expect(runs).toBe(stoppedAt);
    expect(overlapping).toBe(0);
    expect(runs).toBeGreaterThanOrEqual(1);
  });
});

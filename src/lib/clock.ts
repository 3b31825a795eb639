/** Where "now" comes from, so tests can pin dates. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stays where it is set; for tests and benchmarks. */
export function fixedClock(
  start: number | string | Date,
): Clock & { set(t: number | string | Date): void; advance(ms: number): void } {
  let t = new Date(start).getTime();
  return {
    now: () => t,
    set: (v) => {
      t = new Date(v).getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** ISO 8601 in UTC with milliseconds. */
export const isoTime = (ms: number) => new Date(ms).toISOString();

/** The UTC calendar day, YYYY-MM-DD. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

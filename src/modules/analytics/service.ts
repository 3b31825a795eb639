import { utcDay, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Principal } from "../../lib/principal";
import type { FormsService } from "../forms/service";
import { MAX_RANGE_DAYS, PERIODS, type AnalyticsJson, type Period } from "./model";
import type { AnalyticsRepo } from "./repo";

const DAY_MS = 86_400_000;
// Days before year 0000 have no YYYY-MM-DD form.
const FIRST_DAY = Date.parse("0000-01-01T00:00:00.000Z");

export interface AnalyticsQuery {
  period?: string;
  startDate?: string;
  endDate?: string;
}

/** A real calendar date (2026-02-29 is not), as UTC midnight in ms. */
function parseDate(name: string, value: string): number {
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(ms) || utcDay(ms) !== value) {
    throw new AppError("INVALID_PARAMETER", `${name} must be a real calendar date YYYY-MM-DD`);
  }
  return ms;
}

/**
 * The inclusive UTC day range a query asks for. `period` counts days ending today; a date
 * makes the range custom: both dates as given, only a start up to today, only an end the
 * period's length ending there.
 */
export function resolveRange(query: AnalyticsQuery, today: number): { period: Period | "custom"; from: number; to: number } {
  if (query.period !== undefined && !(query.period in PERIODS)) throw new AppError("INVALID_PARAMETER", "period must be one of day, week, month, year");
  const period = (query.period ?? "month") as Period;
  const length = PERIODS[period];
  const start = query.startDate === undefined ? undefined : parseDate("startDate", query.startDate);
  const end = query.endDate === undefined ? undefined : parseDate("endDate", query.endDate);
  if (start === undefined && end === undefined) return { period, from: today - (length - 1) * DAY_MS, to: today };
  const to = end ?? today;
  const from = start ?? to - (length - 1) * DAY_MS;
  if (from > to) throw new AppError("INVALID_PARAMETER", "startDate must not be after endDate");
  if (from < FIRST_DAY) throw new AppError("INVALID_PARAMETER", "a range may not start before 0000-01-01");
  if ((to - from) / DAY_MS + 1 > MAX_RANGE_DAYS) throw new AppError("INVALID_PARAMETER", `a range may cover at most ${MAX_RANGE_DAYS} days`);
  return { period: "custom", from, to };
}

const EMPTY: [string, string] = ["9", "0"];

/** Splits [from, to] (UTC midnights) into leading days, whole calendar months, and trailing days. */
export function splitRange(from: number, to: number): { headDays: [string, string]; tailDays: [string, string]; months: [string, string] } {
  const start = new Date(from);
  // The first month that starts on or after `from`, and the last that ends on or before `to`.
  const firstMonth = start.getUTCDate() === 1 ? from : Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  const end = new Date(to + DAY_MS);
  const afterLastMonth = end.getUTCDate() === 1 ? to + DAY_MS : Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), 1);
  if (firstMonth >= afterLastMonth) return { headDays: [utcDay(from), utcDay(to)], tailDays: EMPTY, months: EMPTY };
  return {
    headDays: firstMonth > from ? [utcDay(from), utcDay(firstMonth - DAY_MS)] : EMPTY,
    months: [utcDay(firstMonth).slice(0, 7), utcDay(afterLastMonth - DAY_MS).slice(0, 7)],
    tailDays: afterLastMonth <= to ? [utcDay(afterLastMonth), utcDay(to)] : EMPTY,
  };
}

export function createAnalyticsService(repo: AnalyticsRepo, forms: FormsService, clock: Clock) {
  return {
    /** Daily counts and top values for a form the owner owns; reads rollups only. */
    async analytics(formId: string, caller: Principal, query: AnalyticsQuery): Promise<AnalyticsJson> {
      const today = Date.parse(`${utcDay(clock.now())}T00:00:00.000Z`);
      const range = resolveRange(query, today);
      const form = await forms.formFor(formId, caller);
      const [from, to] = [utcDay(range.from), utcDay(range.to)];

      const perDay = new Map((await repo.countsPerDay(form.id, from, to)).map((r) => [r.day, r.count]));
      const submissionsOverTime: { date: string; count: number }[] = [];
      let totalSubmissions = 0;
      for (let d = range.from; d <= range.to; d += DAY_MS) {
        const date = utcDay(d);
        const count = perDay.get(date) ?? 0;
        totalSubmissions += count;
        submissionsOverTime.push({ date, count });
      }
      const parts = splitRange(range.from, range.to);
      const top = async <K extends string>(dimension: "country" | "browser" | "device", key: K) =>
        (await repo.topValues(form.id, dimension, parts)).map((r) => ({ [key]: r.value, count: r.count }) as Record<K, string> & { count: number });

      return {
        period: range.period,
        totalSubmissions,
        submissionsOverTime,
        topCountries: await top("country", "country"),
        topBrowsers: await top("browser", "browser"),
        topDevices: await top("device", "device"),
      };
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;

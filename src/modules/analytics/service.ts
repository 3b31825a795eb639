import type { AnswerCache } from "../../lib/answer-cache";
import { utcDay, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { type Actor } from "../../lib/principal";
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
export function resolveRange(
  query: AnalyticsQuery,
  today: number,
): { period: Period | "custom"; from: number; to: number } {
  if (query.period !== undefined && !Object.hasOwn(PERIODS, query.period))
    throw new AppError("INVALID_PARAMETER", "period must be one of day, week, month, year");
  const period = (query.period ?? "month") as Period;
  const length = PERIODS[period];
  const start = query.startDate === undefined ? undefined : parseDate("startDate", query.startDate);
  const end = query.endDate === undefined ? undefined : parseDate("endDate", query.endDate);
  if (start === undefined && end === undefined) return { period, from: today - (length - 1) * DAY_MS, to: today };
  const to = end ?? today;
  const from = start ?? to - (length - 1) * DAY_MS;
  if (from > to) throw new AppError("INVALID_PARAMETER", "startDate must not be after endDate");
  if (from < FIRST_DAY) throw new AppError("INVALID_PARAMETER", "a range may not start before 0000-01-01");
  if ((to - from) / DAY_MS + 1 > MAX_RANGE_DAYS)
    throw new AppError("INVALID_PARAMETER", `a range may cover at most ${MAX_RANGE_DAYS} days`);
  return { period: "custom", from, to };
}

const EMPTY: [string, string] = ["9", "0"];

// The first of a month as UTC midnight; Date.UTC would read the years 0–99 as 1900–1999.
const monthStart = (year: number, month: number) => new Date(0).setUTCFullYear(year, month, 1);

/** Splits [from, to] (UTC midnights) into leading days, whole calendar months, and trailing days. */
export function splitRange(
  from: number,
  to: number,
): { headDays: [string, string]; tailDays: [string, string]; months: [string, string] } {
  const start = new Date(from);
  // The first month that starts on or after `from`, and the last that ends on or before `to`.
  const firstMonth = start.getUTCDate() === 1 ? from : monthStart(start.getUTCFullYear(), start.getUTCMonth() + 1);
  const end = new Date(to + DAY_MS);
  const afterLastMonth = end.getUTCDate() === 1 ? to + DAY_MS : monthStart(end.getUTCFullYear(), end.getUTCMonth());
  if (firstMonth >= afterLastMonth) return { headDays: [utcDay(from), utcDay(to)], tailDays: EMPTY, months: EMPTY };
  return {
    headDays: firstMonth > from ? [utcDay(from), utcDay(firstMonth - DAY_MS)] : EMPTY,
    months: [utcDay(firstMonth).slice(0, 7), utcDay(afterLastMonth - DAY_MS).slice(0, 7)],
    tailDays: afterLastMonth <= to ? [utcDay(afterLastMonth), utcDay(to)] : EMPTY,
  };
}

/**
 * The UTC days from `from` to `to` (midnights), as YYYY-MM-DD. Days up to the 28th follow from the
 * day before by counting, since every month has them; the rest are converted from the date: ~50
 * conversions a year rather than 365 (which took ~14 % of a year's answer).
 */
export function daysBetween(from: number, to: number): string[] {
  const days: string[] = [];
  let month = "";
  let day = 28;
  for (let d = from; d <= to; d += DAY_MS) {
    if (day >= 28) {
      const date = utcDay(d);
      month = date.slice(0, 8);
      day = Number(date.slice(8));
    } else day += 1;
    days.push(day < 10 ? `${month}0${day}` : `${month}${day}`);
  }
  return days;
}

export function createAnalyticsService(repo: AnalyticsRepo, forms: FormsService, clock: Clock, answers: AnswerCache) {
  /** The analytics of a range, read from the rollups. */
  async function compute(
    formId: string,
    range: { period: Period | "custom"; from: number; to: number },
  ): Promise<AnalyticsJson> {
    const days = daysBetween(range.from, range.to);
    const perDay = new Map((await repo.countsPerDay(formId, days[0]!, days.at(-1)!)).map((r) => [r.day, r.count]));
    let totalSubmissions = 0;
    const submissionsOverTime = days.map((date) => {
      const count = perDay.get(date) ?? 0;
      totalSubmissions += count;
      return { date, count };
    });
    const parts = splitRange(range.from, range.to);
    const top = async <K extends string>(dimension: "country" | "browser" | "device", key: K) =>
      (await repo.topValues(formId, dimension, parts)).map(
        (r) => ({ [key]: r.value, count: r.count }) as Record<K, string> & { count: number },
      );
    return {
      period: range.period,
      totalSubmissions,
      submissionsOverTime,
      topCountries: await top("country", "country"),
      topBrowsers: await top("browser", "browser"),
      topDevices: await top("device", "device"),
    };
  }

  return {
    /**
     * Daily counts and top values for a form the owner owns, as the API's JSON; reads rollups only.
     * Answered from the answer cache while nothing that changes the form's rollups is committed
     * (the submissions service drops them); the key names the range, so an answer that ends today
     * is not asked for tomorrow.
     */
    async analyticsJson(actor: Actor, formId: string, query: AnalyticsQuery): Promise<string> {
      const today = Date.parse(`${utcDay(clock.now())}T00:00:00.000Z`);
      const range = resolveRange(query, today);
      // formFor has looked at the change feed: another process's commits have cleared the cache by now.
      const form = await forms.formFor(actor, formId);
      const key = `analytics:${range.period}:${range.from}:${range.to}`;
      const cached = answers.get(form.id, key);
      if (cached !== undefined) return cached;
      const seen = answers.generation();
      const body = JSON.stringify(await compute(form.id, range));
      answers.set(form.id, key, body, seen);
      return body;
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;

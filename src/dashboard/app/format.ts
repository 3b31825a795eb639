// Numbers and dates in the browser's own locale; dates of analytics are UTC days, as the API counts them.

import { LOCALES } from "./locale";

const numberFormat = new Intl.NumberFormat(LOCALES);
const percentFormat = new Intl.NumberFormat(LOCALES, {
  style: "percent",
  maximumFractionDigits: 0,
  signDisplay: "exceptZero",
});
const decimalFormat = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 1 });
const dateTimeFormat = new Intl.DateTimeFormat(LOCALES, { dateStyle: "medium", timeStyle: "short" });
const dateFormat = new Intl.DateTimeFormat(LOCALES, { dateStyle: "medium" });
const dayFormat = new Intl.DateTimeFormat(LOCALES, { dateStyle: "medium", timeZone: "UTC" });
let regionNames: Intl.DisplayNames | undefined;
try {
  regionNames = new Intl.DisplayNames(LOCALES, { type: "region" });
} catch {}

export const formatNumber = (n: number) => numberFormat.format(n);
export const formatDecimal = (n: number) => decimalFormat.format(n);
/** `2026-11-22T10:42:22.123Z` in the reader's zone and words. */
export const formatDateTime = (iso: string) => dateTimeFormat.format(new Date(iso));
export const formatDate = (iso: string) => dateFormat.format(new Date(iso));
/** A `YYYY-MM-DD` UTC day, as that day (never shifted by the reader's zone). */
export const formatDay = (day: string) => dayFormat.format(dayToDate(day));

/** A country code as the reader's language names it; ZZ (unknown) as "Unknown". */
export function countryName(code: string): string {
  if (code === "ZZ") return "Unknown";
  try {
    return regionNames?.of(code) ?? code;
  } catch {
    return code;
  }
}

/** The change from `before` to `now` as "+12%", or null when there was nothing before to compare with. */
export function change(now: number, before: number): string | null {
  if (before === 0) return null;
  return percentFormat.format((now - before) / before);
}

export const dayToDate = (day: string) => new Date(`${day}T00:00:00Z`);
export const dateToDay = (d: Date) => d.toISOString().slice(0, 10);
/** `day` moved by `days` (negative: earlier). */
export const addDays = (day: string, days: number) => dateToDay(new Date(dayToDate(day).getTime() + days * 86_400_000));
/** Today as a UTC day, the way the API's periods end. */
export const todayUtc = () => dateToDay(new Date());

/** "1 submission", "3 submissions" in the reader's digits. */
export const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

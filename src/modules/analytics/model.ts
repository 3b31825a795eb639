import { t, type Static } from "elysia";
import { Count } from "../forms/model";

export const PERIODS = { day: 1, week: 7, month: 30, year: 365 } as const;
export type Period = keyof typeof PERIODS;
/** The longest range a caller may ask for, in days (five years). */
export const MAX_RANGE_DAYS = 1830;

const DATE = "^\\d{4}-\\d{2}-\\d{2}$";

export const AnalyticsQuerySchema = t.Object({
  period: t.Optional(
    t.String({
      enum: Object.keys(PERIODS),
      error: "period must be one of day, week, month, year",
      description: "last 1/7/30/365 UTC days ending today (default month)",
    }),
  ),
  startDate: t.Optional(
    t.String({
      format: "date",
      pattern: DATE,
      error: "startDate must be a date YYYY-MM-DD",
      description: "start of a custom range (UTC, inclusive)",
    }),
  ),
  endDate: t.Optional(
    t.String({
      format: "date",
      pattern: DATE,
      error: "endDate must be a date YYYY-MM-DD",
      description: "end of a custom range (UTC, inclusive)",
    }),
  ),
});

export const AnalyticsSchema = t.Object({
  period: t.Unsafe<Period | "custom">({ type: "string", enum: [...Object.keys(PERIODS), "custom"] }),
  totalSubmissions: Count(),
  submissionsOverTime: t.Array(t.Object({ date: t.String(), count: Count() })),
  topCountries: t.Array(t.Object({ country: t.String(), count: Count() })),
  topBrowsers: t.Array(t.Object({ browser: t.String(), count: Count() })),
  topDevices: t.Array(t.Object({ device: t.String(), count: Count() })),
});
export type AnalyticsJson = Static<typeof AnalyticsSchema>;

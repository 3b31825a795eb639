import { useState } from "preact/hooks";
import type { AnalyticsQuery } from "../../../client/index";
import { forms, type Analytics, type FormDetails } from "../calls";
import { addDays, change, countryName, formatDay, formatDecimal, formatNumber, plural, todayUtc } from "../format";
import { go, href } from "../router";
import { BarList, DailyChart, DailyTable } from "../ui/charts";
import { Show } from "../ui/bits";
import { useLoad } from "../ui/load";

const PERIODS = [
  { id: "day", label: "Today", length: "day" },
  { id: "week", label: "7 days", length: "7 days" },
  { id: "month", label: "30 days", length: "30 days" },
  { id: "year", label: "365 days", length: "365 days" },
] as const;

type Period = (typeof PERIODS)[number]["id"];

/** The range the address asks for: a period (default 30 days) or `from`/`to` days. */
function readRange(query: URLSearchParams): {
  query: AnalyticsQuery;
  custom: { from: string; to: string } | null;
  period: Period | null;
} {
  const from = query.get("from");
  const to = query.get("to");
  if (from && to) return { query: { startDate: from, endDate: to }, custom: { from, to }, period: null };
  const p = PERIODS.find((x) => x.id === query.get("period"))?.id ?? "month";
  return { query: { period: p }, custom: null, period: p };
}

interface Report {
  now: Analytics;
  /** The same number of days just before, for the change; null when it could not be read. */
  before: Analytics | null;
}

/** Totals, change against the previous period, the daily chart and the top countries, browsers and devices. */
export function AnalyticsTab({ form, query }: { form: FormDetails; query: URLSearchParams }) {
  const range = readRange(query);
  const key = JSON.stringify(range.query);
  const [report, reload] = useLoad<Report>(async () => {
    const now = await forms.analytics(form.id, range.query);
    const days = now.submissionsOverTime;
    const first = days[0]?.date;
    let before: Analytics | null = null;
    if (first) {
      try {
        before = await forms.analytics(form.id, {
          startDate: addDays(first, -days.length),
          endDate: addDays(first, -1),
        });
      } catch {
        // Before year 0, or a range the server refuses: the change is simply not shown.
      }
    }
    return { now, before };
  }, [form.id, key]);
  const base = ["forms", form.id, "analytics"];
  // The pickers show the days the chart shows, whichever way they were chosen.
  const days = report.state === "ready" ? report.data.now.submissionsOverTime : [];
  const shown = days.length ? { from: days[0]!.date, to: days.at(-1)!.date } : range.custom;
  return (
    <section aria-labelledby="analytics-title">
      <h2 id="analytics-title" class="visually-hidden">
        Analytics
      </h2>
      <div class="toolbar">
        <div class="segmented" role="group" aria-label="Period">
          {PERIODS.map((p) => (
            <a
              key={p.id}
              class="segment"
              href={href(base, { period: p.id })}
              aria-current={range.period === p.id ? "true" : undefined}
            >
              {p.label}
            </a>
          ))}
        </div>
        <CustomRange
          key={shown ? `${shown.from}/${shown.to}` : "none"}
          base={base}
          current={range.custom}
          shown={shown}
        />
      </div>
      <Show value={report} retry={reload} label="Loading analytics…">
        {(r) => (
          <Report
            report={r}
            form={form}
            periodWords={range.period ? PERIODS.find((p) => p.id === range.period)!.length : null}
          />
        )}
      </Show>
    </section>
  );
}

/** The days of the range as two pickers: `shown` is the chart's, `current` the custom range asked for (if one was). */
function CustomRange({
  base,
  current,
  shown,
}: {
  base: string[];
  current: { from: string; to: string } | null;
  shown: { from: string; to: string } | null;
}) {
  const today = todayUtc();
  const [from, setFrom] = useState(shown?.from ?? addDays(today, -13));
  const [to, setTo] = useState(shown?.to ?? today);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="range"
      aria-label="Custom range"
      onSubmit={(e) => {
        e.preventDefault();
        if (from > to) return setError("The first day must not be after the last.");
        setError(null);
        go(href(base, { from, to }));
      }}
    >
      <label class="field-inline">
        <span>From</span>
        <input type="date" value={from} max={today} required onInput={(e) => setFrom(e.currentTarget.value)} />
      </label>
      <label class="field-inline">
        <span>to</span>
        <input type="date" value={to} required onInput={(e) => setTo(e.currentTarget.value)} />
      </label>
      <button
        type="submit"
        class={current ? "button button-selected" : "button"}
        aria-pressed={current ? "true" : "false"}
      >
        Show range
      </button>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function Report({ report, form, periodWords }: { report: Report; form: FormDetails; periodWords: string | null }) {
  const { now, before } = report;
  const days = now.submissionsOverTime;
  const first = days[0]?.date ?? todayUtc();
  const last = days[days.length - 1]?.date ?? first;
  const rangeWords = periodWords ? `the last ${periodWords}` : `${formatDay(first)} – ${formatDay(last)}`;
  const busiest = days.reduce(
    (best, d) => (d.count > (best?.count ?? 0) ? d : best),
    undefined as (typeof days)[number] | undefined,
  );
  const delta = before ? change(now.totalSubmissions, before.totalSubmissions) : null;
  const average = days.length ? now.totalSubmissions / days.length : 0;
  const averageBefore = before?.submissionsOverTime.length
    ? before.totalSubmissions / before.submissionsOverTime.length
    : 0;
  const label = `Submissions per day, ${rangeWords}: ${plural(now.totalSubmissions, "submission")} in all${busiest ? `, most on ${formatDay(busiest.date)} (${formatNumber(busiest.count)})` : ""}.`;
  return (
    <>
      <div class="stats">
        <div class="card stat">
          <p class="stat-label">Submissions</p>
          <p class="stat-value" data-testid="total-submissions">
            {formatNumber(now.totalSubmissions)}
          </p>
          <Change delta={delta} before={before?.totalSubmissions ?? null} days={days.length} />
        </div>
        <div class="card stat">
          <p class="stat-label">Per day</p>
          <p class="stat-value">{formatDecimal(average)}</p>
          <p class="stat-note muted">
            {before
              ? `${formatDecimal(averageBefore)} a day in the ${plural(days.length, "day")} before`
              : `over ${plural(days.length, "day")}`}
          </p>
        </div>
        <div class="card stat">
          <p class="stat-label">Busiest day</p>
          <p class="stat-value">{busiest ? formatNumber(busiest.count) : "—"}</p>
          <p class="stat-note muted">{busiest ? formatDay(busiest.date) : "no submissions"}</p>
        </div>
      </div>
      <section class="card" aria-labelledby="daily-title">
        <div class="card-head">
          <h3 id="daily-title">Submissions per day</h3>
          <p class="muted small">{rangeWords} (UTC days)</p>
        </div>
        {now.totalSubmissions === 0 && form.submissionCount === 0 ? (
          <div class="empty empty-inline">
            <p>No submissions yet. Put the form on your website and they will show up here.</p>
            <a class="button button-primary" href={href(["forms", form.id, "embed"])}>
              Get the snippet
            </a>
          </div>
        ) : (
          <>
            <DailyChart days={days} label={label} />
            <details class="details">
              <summary>The numbers as a table</summary>
              <DailyTable days={days} />
            </details>
          </>
        )}
      </section>
      <div class="grid-3">
        <BarList
          title="Countries"
          rows={now.topCountries.map((c) => ({ label: countryName(c.country), count: c.count }))}
          empty="No submissions in this range."
        />
        <BarList
          title="Browsers"
          rows={now.topBrowsers.map((b) => ({
            label: b.browser === "unknown" ? "Unknown" : b.browser,
            count: b.count,
          }))}
          empty="No submissions in this range."
        />
        <BarList
          title="Devices"
          rows={now.topDevices.map((d) => ({
            label: d.device.charAt(0).toUpperCase() + d.device.slice(1),
            count: d.count,
          }))}
          empty="No submissions in this range."
        />
      </div>
    </>
  );
}

function Change({ delta, before, days }: { delta: string | null; before: number | null; days: number }) {
  const previous = `the ${plural(days, "day")} before`;
  if (before === null) return <p class="stat-note muted">no earlier period to compare</p>;
  if (delta === null) return <p class="stat-note muted">none in {previous}</p>;
  const up = delta.startsWith("+");
  const down = delta.startsWith("-") || delta.startsWith("−");
  return (
    <p class={`stat-note ${up ? "up" : down ? "down" : "muted"}`}>
      <span aria-hidden="true">{up ? "▲ " : down ? "▼ " : ""}</span>
      {delta}{" "}
      <span class="muted">
        from {formatNumber(before)} in {previous}
      </span>
    </p>
  );
}

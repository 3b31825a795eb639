import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { formatDay, formatNumber } from "../format";
import { LOCALES } from "../locale";

export interface DayCount {
  date: string;
  count: number;
}

/** A small line of daily counts: a glance, not a reading (the label says the total). */
export function Sparkline({ days, label }: { days: DayCount[]; label: string }) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const step = days.length > 1 ? 100 / (days.length - 1) : 100;
  const points = days.map((d, i) => `${(i * step).toFixed(2)},${(22 - (d.count / max) * 20).toFixed(2)}`).join(" ");
  return (
    <svg class="sparkline" viewBox="0 0 100 24" preserveAspectRatio="none" role="img" aria-label={label}>
      <polyline class="sparkline-area" points={`0,24 ${points} 100,24`} />
      <polyline class="sparkline-line" points={points} />
    </svg>
  );
}

const css = (el: Element, name: string) => getComputedStyle(el).getPropertyValue(name).trim();
const dark = matchMedia("(prefers-color-scheme: dark)");
const axisDay = new Intl.DateTimeFormat(LOCALES, { month: "short", day: "numeric", timeZone: "UTC" });
const axisMonth = new Intl.DateTimeFormat(LOCALES, { month: "short", year: "2-digit", timeZone: "UTC" });

/**
 * The daily counts of a period as bars (uPlot, on a canvas), in the page's colours, redrawn for the
 * width it is given and when the colour scheme changes. For screen readers it is one image with a
 * summary; the counts themselves are in the table beside it.
 */
export function DailyChart({ days, label }: { days: DayCount[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    let plot: uPlot | undefined;
    const draw = () => {
      plot?.destroy();
      const accent = css(el, "--accent");
      const grid = css(el, "--line");
      const text = css(el, "--muted");
      const xs = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
      const ys = days.map((d) => d.count);
      const long = days.length > 70;
      const axis = {
        stroke: text,
        grid: { stroke: grid, width: 1 },
        ticks: { stroke: grid, width: 1 },
        font: `12px ${css(el, "--font")}`,
      };
      plot = new uPlot(
        {
          width: el.clientWidth,
          height: 240,
          legend: { show: false },
          cursor: { y: false, points: { show: false } },
          padding: [12, 8, 0, 0],
          scales: {
            x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
            y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
          },
          axes: [
            {
              ...axis,
              space: 60,
              values: (_u, splits) => splits.map((s) => (long ? axisMonth : axisDay).format(new Date(s * 1000))),
            },
            {
              ...axis,
              size: 48,
              incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 50_000, 100_000],
              values: (_u, splits) => splits.map((s) => formatNumber(s)),
            },
          ],
          series: [
            {},
            {
              label: "Submissions",
              stroke: accent,
              fill: accent,
              width: 0,
              paths: uPlot.paths.bars!({ size: [0.7, 48], gap: 1 }),
              points: { show: false },
            },
          ],
        },
        [xs, ys],
        el,
      );
    };
    draw();
    let width = el.clientWidth;
    const resized = new ResizeObserver(() => {
      if (el.clientWidth !== width && plot) plot.setSize({ width: (width = el.clientWidth), height: 240 });
    });
    resized.observe(el);
    dark.addEventListener("change", draw);
    return () => {
      resized.disconnect();
      dark.removeEventListener("change", draw);
      plot?.destroy();
    };
  }, [days]);
  return <div ref={box} class="chart" role="img" aria-label={label} />;
}

/** The daily counts as a table: what the chart shows, readable by anyone. */
export function DailyTable({ days }: { days: DayCount[] }) {
  return (
    <table class="table table-compact">
      <thead>
        <tr>
          <th scope="col">Day (UTC)</th>
          <th scope="col" class="num">
            Submissions
          </th>
        </tr>
      </thead>
      <tbody>
        {days.map((d) => (
          <tr key={d.date}>
            <td>{formatDay(d.date)}</td>
            <td class="num">{formatNumber(d.count)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A breakdown as labelled bars, widest first (plain HTML and CSS). */
export function BarList({
  title,
  rows,
  empty,
}: {
  title: string;
  rows: { label: string; count: number }[];
  empty: string;
}) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  const total = rows.reduce((s, r) => s + r.count, 0);
  return (
    <section class="card bar-card" aria-labelledby={`bars-${title}`}>
      <h3 id={`bars-${title}`}>{title}</h3>
      {rows.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul class="bars">
          {rows.map((r) => (
            <li key={r.label} class="bar-row">
              <span class="bar" style={{ width: `${(r.count / max) * 100}%` }} aria-hidden="true" />
              <span class="bar-label">{r.label}</span>
              <span class="bar-count">
                <span class="bar-number">{formatNumber(r.count)}</span>
                <span class="visually-hidden"> of {formatNumber(total)}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

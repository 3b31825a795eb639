// Latency buckets in seconds: the submit path lives in the low milliseconds.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The requests of one method and route pattern: counts by status, and their latencies. */
interface Series {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Per bucket, not cumulative: an observation adds to one slot; render sums them. */
  buckets: number[];
  sum: number;
  count: number;
}

export interface Gauge {
  name: string;
  help: string;
  type?: "gauge" | "counter";
  /** One value, or one per set of labels. */
  value: number | { labels: Record<string, string>; value: number }[];
}

const label = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** Request counters and latency histograms for /metrics, labelled by route pattern (never raw paths, so cardinality stays bounded). */
export class HttpMetrics {
  // By route, then method: found without joining the two into a new string per request.
  private readonly byRoute = new Map<string, Map<string, Series>>();
  /** In the order first seen, as /metrics lists them. */
  private readonly series: Series[] = [];
  rateLimited = 0;

  observe(method: string, route: string, status: number, seconds: number): void {
    let methods = this.byRoute.get(route);
    if (!methods) this.byRoute.set(route, (methods = new Map()));
    let s = methods.get(method);
    if (!s) {
      s = { method, route, byStatus: new Map(), buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      methods.set(method, s);
      this.series.push(s);
    }
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    if (i < BUCKETS.length) s.buckets[i]! += 1;
    s.sum += seconds;
    s.count += 1;
  }

  /** Prometheus text exposition format, with the given gauges appended. */
  render(gauges: Gauge[]): string {
    const out: string[] = [];
    out.push(
      "# HELP formsvc_http_requests_total HTTP requests by route and status.",
      "# TYPE formsvc_http_requests_total counter",
    );
    for (const s of this.series) {
      for (const [status, n] of s.byStatus)
        out.push(`formsvc_http_requests_total{method="${s.method}",route="${label(s.route)}",status="${status}"} ${n}`);
    }
    out.push(
      "# HELP formsvc_http_request_duration_seconds HTTP request latency.",
      "# TYPE formsvc_http_request_duration_seconds histogram",
    );
    for (const s of this.series) {
      const labels = `method="${s.method}",route="${label(s.route)}"`;
      let cumulative = 0;
      BUCKETS.forEach((b, i) =>
        out.push(`formsvc_http_request_duration_seconds_bucket{${labels},le="${b}"} ${(cumulative += s.buckets[i]!)}`),
      );
      out.push(`formsvc_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
      out.push(`formsvc_http_request_duration_seconds_sum{${labels}} ${s.sum}`);
      out.push(`formsvc_http_request_duration_seconds_count{${labels}} ${s.count}`);
    }
    const all: Gauge[] = [
      {
        name: "formsvc_rate_limited_total",
        help: "Requests refused with 429.",
        type: "counter",
        value: this.rateLimited,
      },
      ...gauges,
    ];
    for (const g of all) {
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} ${g.type ?? "gauge"}`);
      if (typeof g.value === "number") out.push(`${g.name} ${g.value}`);
      else
        for (const s of g.value)
          out.push(
            `${g.name}{${Object.entries(s.labels)
              .map(([k, v]) => `${k}="${label(v)}"`)
              .join(",")}} ${s.value}`,
          );
    }
    return `${out.join("\n")}\n`;
  }
}

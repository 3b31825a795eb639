// Latency buckets in seconds: the submit path lives in the low milliseconds.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export interface Gauge {
  name: string;
  help: string;
  type?: "gauge" | "counter";
  value: number;
}

const label = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** Request counters and latency histograms for /metrics, labelled by route pattern (never raw paths, so cardinality stays bounded). */
export class HttpMetrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  rateLimited = 0;

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method}\u0000${route}\u0000${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const hkey = `${method}\u0000${route}`;
    let h = this.latency.get(hkey);
    if (!h) this.latency.set(hkey, (h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) h.counts[i]! += 1;
    h.sum += seconds;
    h.count += 1;
  }

  /** Prometheus text exposition format, with the given gauges appended. */
  render(gauges: Gauge[]): string {
    const out: string[] = [];
    out.push("# HELP formsvc_http_requests_total HTTP requests by route and status.", "# TYPE formsvc_http_requests_total counter");
    for (const [key, n] of this.requests) {
      const [method, route, status] = key.split("\u0000");
      out.push(`formsvc_http_requests_total{method="${method}",route="${label(route!)}",status="${status}"} ${n}`);
    }
    out.push("# HELP formsvc_http_request_duration_seconds HTTP request latency.", "# TYPE formsvc_http_request_duration_seconds histogram");
    for (const [key, h] of this.latency) {
      const [method, route] = key.split("\u0000");
      const labels = `method="${method}",route="${label(route!)}"`;
      BUCKETS.forEach((b, i) => out.push(`formsvc_http_request_duration_seconds_bucket{${labels},le="${b}"} ${h.counts[i]}`));
      out.push(`formsvc_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      out.push(`formsvc_http_request_duration_seconds_sum{${labels}} ${h.sum}`);
      out.push(`formsvc_http_request_duration_seconds_count{${labels}} ${h.count}`);
    }
    const all: Gauge[] = [{ name: "formsvc_rate_limited_total", help: "Requests refused with 429.", type: "counter", value: this.rateLimited }, ...gauges];
    for (const g of all) out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} ${g.type ?? "gauge"}`, `${g.name} ${g.value}`);
    return `${out.join("\n")}\n`;
  }
}

// Bulk seeding through the code the submit path commits with (rows, counters, rollups, outbox), in big transactions.
import { isoTime } from "../src/lib/clock";
import { newId } from "../src/lib/ids";
import type { Form } from "../src/modules/forms/model";
import type { NewSubmission } from "../src/modules/submissions/model";
import type { SubmissionMeta } from "../src/modules/submissions/meta";
import type { Sql } from "../src/db/sql";
import { submitPipeline } from "../src/services";

const COUNTRIES = ["US", "GB", "DE", "FR", "IN", "BR", "JP", "CA", "AU", "NL", "ES", "IT", "ZZ"];
const BROWSERS = ["Chrome", "Safari", "Firefox", "Edge", "Mobile Safari", "Samsung Internet", null];
const DEVICES: SubmissionMeta["device"][] = ["desktop", "mobile", "tablet", "bot", "unknown"];

/** Writes `count` submissions to `form`, spread over the `days` days before `end`. */
export async function seedSubmissions(
  sql: Sql,
  form: Form,
  count: number,
  opts: { days?: number; end?: number; label?: string } = {},
): Promise<void> {
  const commit = submitPipeline(sql).commit;
  const days = opts.days ?? 365;
  const end = opts.end ?? Date.now();
  const step = (days * 86_400_000) / count;
  const BATCH = 10_000;
  let i = 0;
  const started = performance.now();
  while (i < count) {
    const batch: NewSubmission[] = [];
    for (const stop = Math.min(count, i + BATCH); i < stop; i++) {
      const meta: SubmissionMeta = {
        browser: BROWSERS[i % BROWSERS.length]!,
        browserVersion: "120.0",
        os: "Windows",
        osVersion: "10",
        device: DEVICES[i % DEVICES.length]!,
        country: COUNTRIES[(i * 7) % COUNTRIES.length]!,
        language: "en",
        referrer: null,
      };
      const fields = { email: `user${i % 50_000}@example.com`, message: `Hello number ${i}`, rating: i % 5 };
      batch.push({
        id: newId("sub"),
        form,
        status: "inbox",
        json: JSON.stringify({ ...fields, _meta: meta }),
        meta,
        email: fields.email,
        createdAt: isoTime(end - days * 86_400_000 + i * step),
        idempotency: null,
        stages: {},
      });
    }
    const failed = (await commit(batch)).find((outcome) => outcome !== null);
    if (failed) throw new Error(`seeding failed: ${failed.message}`);
    if (i % 100_000 === 0 || i === count)
      process.stderr.write(
        `\r${opts.label ?? "seeding"}: ${i}/${count} (${Math.round((performance.now() - started) / 1000)} s)`,
      );
  }
  process.stderr.write("\n");
}

import { describe, expect, test } from "bun:test";
import { onPostgres } from "../helpers/engine";
import { systemClock } from "../../src/lib/clock";
import { useServer } from "../helpers/fixture";

// A clock of the test's own (the system's) keeps the timed jobs off: the fold runs when the test says.
const server = useServer({ clock: systemClock });
const owner = server.seed();

describe.if(onPostgres)("the fold of counter deltas on PostgreSQL", () => {
  test("vacuums the delta tables it emptied, so no count read walks their deleted rows, and keeps every count", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await server.request("/api/v1/forms/submit", {
        method: "POST",
        key: owner.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ formId: owner.formId, data: { i } }),
      });
      expect(res.status).toBe(200);
    }
    const vacuums = async () =>
      Object.fromEntries(
        (
          await server.query<{ relname: string; vacuum_count: number }>(
            "SELECT relname, vacuum_count FROM pg_stat_user_tables WHERE relname IN ('form_count_deltas', 'form_rollup_deltas')",
          )
        ).map((r) => [r.relname, Number(r.vacuum_count)]),
      );
    const before = await vacuums();
    expect(await server.services.foldTallies()).toBe(1);
    const after = await vacuums();
    expect(after.form_count_deltas).toBe(before.form_count_deltas! + 1);
    expect(after.form_rollup_deltas).toBe(before.form_rollup_deltas! + 1);
    expect(await server.query("SELECT count(*) AS n FROM form_count_deltas")).toEqual([{ n: 0 }]);
    const form = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    expect(form.submissionCount).toBe(3);
    // Nothing to fold: no vacuum either.
    expect(await server.services.foldTallies()).toBe(0);
    expect(await vacuums()).toEqual(after);
  });
});

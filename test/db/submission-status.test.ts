import { expect, test } from "bun:test";
import { newId } from "../../src/lib/ids";
import type { NewSubmission, SubmissionStatus } from "../../src/modules/submissions/model";
import { submitPipeline } from "../../src/services";
import { seedOwner, startTestServer } from "../helpers/harness";

test("every writer of the submit pipeline stores spam and counts it nowhere: not in counters, joiners, rollups, the outbox or the lists", async () => {
  const server = await startTestServer();
  try {
    const owner = await seedOwner(server, "owner@example.com", {
      formType: "waitlist",
      usersJoinedEnabled: true,
      emailEnabled: true,
      developerNotifications: true,
    });
    const form = await server.services.forms.requireForm(owner.formId);
    const meta = {
      browser: "Firefox",
      browserVersion: "1",
      os: "Linux",
      osVersion: null,
      device: "desktop" as const,
      country: "DE",
      language: "de",
      referrer: null,
    };
    const submission = (status: SubmissionStatus, email: string): NewSubmission => ({
      id: newId("sub"),
      form,
      status,
      json: JSON.stringify({ email, _meta: meta }),
      meta,
      email,
      createdAt: new Date().toISOString(),
      idempotency: null,
      stages: {},
    });
    const commit = submitPipeline(server.store.sql).commit;
    expect(
      await commit([
        submission("spam", "bot@example.com"),
        submission("inbox", "ann@example.com"),
        submission("spam", "bot2@example.com"),
      ]),
    ).toEqual([null, null, null]);
    server.services.forms.forget([form.id]);

    expect(await server.query("SELECT status, count(*) AS n FROM submissions GROUP BY status ORDER BY status")).toEqual(
      [
        { status: "inbox", n: 1 },
        { status: "spam", n: 2 },
      ],
    );
    const shown = (await server.json(`/api/v1/forms/${form.id}`, { key: owner.key })).body;
    expect([shown.submissionCount, shown.usersJoinedSettings.count]).toEqual([1, 1]);
    expect(await server.query("SELECT email FROM waitlist_joiners")).toEqual([{ email: "ann@example.com" }]);
    await server.services.foldTallies(); // on PostgreSQL, the deltas into the rows
    expect(await server.query("SELECT count FROM form_daily_counts WHERE dimension = 'total'")).toEqual([{ count: 1 }]);
    expect(await server.query("SELECT reply_to FROM outbox")).toEqual([{ reply_to: "ann@example.com" }]);
    const page = (await server.json(`/api/v1/forms/${form.id}/submissions`, { key: owner.key })).body;
    expect(page.submissions.map((s: { data: { email: string } }) => s.data.email)).toEqual(["ann@example.com"]);
    const analytics = (await server.json(`/api/v1/forms/${form.id}/analytics?period=day`, { key: owner.key })).body;
    expect(analytics.totalSubmissions).toBe(1);
  } finally {
    await server.close();
  }
});

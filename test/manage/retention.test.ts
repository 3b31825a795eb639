import { personalTeamId } from "../../src/lib/rights";
import { describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { ownerPrincipal } from "../../src/lib/principal";
import { useServer } from "../helpers/fixture";
import { cliJson, runCli, seedForm } from "../helpers/harness";
import { keptCounts, recount } from "../helpers/recount";
import { submitRequest } from "../../src/modules/submissions/request";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-22T12:00:00.000Z");
const clock = fixedClock(NOW);
const server = useServer({ clock, config: { rateLimit: 100_000 } });
const owner = server.seed("owner@example.com", { formType: "waitlist", usersJoinedEnabled: true });

const submitAt = async (at: number, formId: string, data: Record<string, unknown>) => {
  clock.set(at);
  const res = await server.submit(owner.key, formId, data);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};
const ids = async (formId: string) =>
  (await server.query("SELECT id FROM submissions WHERE form_id = ? ORDER BY created_at", formId)).map((r) => r.id);

describe("retentionDays", () => {
  test("is set and cleared by forms create|update --retention-days N | --no-retention, shown by Get Form and forms show", () => {
    const form = cliJson(
      ["forms", "create", "--owner", "owner@example.com", "--name", "Short", "--retention-days", "14"],
      { db: server.db },
    );
    expect(form.retentionDays).toBe(14);
    expect(cliJson(["forms", "update", form.id, "--no-retention"], { db: server.db }).retentionDays).toBeNull();
    expect(cliJson(["forms", "update", form.id, "--retention-days", "90"], { db: server.db }).retentionDays).toBe(90);
    expect(runCli(["forms", "show", form.id], { db: server.db }).stdout).toMatch(/retention:\s+90 day\(s\)/);
    for (const bad of [
      ["--retention-days", "0"],
      ["--retention-days", "1.5"],
      ["--retention-days", "36501"],
      ["--retention-days", "3", "--no-retention"],
    ]) {
      const res = runCli(["forms", "update", form.id, ...bad], { db: server.db });
      expect([bad.join(" "), res.code, res.stderr]).toEqual([bad.join(" "), 1, expect.stringContaining("retention")]);
    }
  });

  test("the job deletes older submissions, inbox and spam, of forms with a retention only; counts, joiners and analytics equal a recount", async () => {
    const keepAll = (await seedForm(server, "owner@example.com", { name: "Forever" })).id;
    const old = [
      await submitAt(NOW - 40 * DAY, owner.formId, { email: "old@example.com" }),
      await submitAt(NOW - 31 * DAY, owner.formId, { email: "both@example.com" }),
      await submitAt(NOW - 35 * DAY, owner.formId, { email: "bot@example.com", _gotcha: "x" }),
    ];
    const recent = [
      await submitAt(NOW - 29 * DAY, owner.formId, { email: "both@example.com" }),
      await submitAt(NOW - DAY, owner.formId, { n: 1 }),
    ];
    const forever = await submitAt(NOW - 400 * DAY, keepAll, { email: "old@example.com" });
    clock.set(NOW);
    expect(cliJson(["forms", "update", owner.formId, "--retention-days", "30"], { db: server.db }).retentionDays).toBe(
      30,
    );
    expect((await ids(owner.formId)).length).toBe(5);

    expect(await server.services.lifecycle.expireRetained()).toBe(old.length);
    expect((await ids(owner.formId)).sort()).toEqual([...recent].sort());
    expect(await ids(keepAll)).toEqual([forever]);
    for (const formId of [owner.formId, keepAll])
      expect(await keptCounts(server, formId)).toEqual(await recount(server, formId));
    const form = (await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body;
    expect([form.submissionCount, form.usersJoinedSettings.count]).toEqual([2, 2]);
    const analytics = (await server.json(`/api/v1/forms/${owner.formId}/analytics?period=year`, { key: owner.key }))
      .body;
    expect(analytics.totalSubmissions).toBe(2);

    // A day later, the next one goes; a run with nothing to do deletes nothing.
    clock.set(NOW + 2 * DAY);
    expect(await server.services.lifecycle.expireRetained()).toBe(1);
    expect(await server.services.lifecycle.expireRetained()).toBe(0);
    expect(await ids(owner.formId)).toEqual([recent[1]]);
    expect(await keptCounts(server, owner.formId)).toEqual(await recount(server, owner.formId));
  });

  test("deletes a large backlog in several transactions, each recorded in the audit trail as the retention job's", async () => {
    const big = (await seedForm(server, "owner@example.com", { name: "Backlog", retentionDays: 1 })).id;
    await Promise.all(
      Array.from({ length: 1_200 }, (_, i) =>
        server.services.submissions.submit(
          submitRequest({
            actor: ownerPrincipal(owner.ownerId),
            body: { formId: big, data: { i } },
            submitter: {
              userAgent: null,
              acceptLanguage: null,
              referer: null,
              origin: null,
              ip: "127.0.0.1",
              proxyCountry: null,
            },
          }),
        ),
      ),
    );
    clock.set(NOW + 10 * DAY);
    expect(await server.services.lifecycle.expireRetained()).toBe(1_200);
    expect(await keptCounts(server, big)).toEqual(await recount(server, big));
    const lines = cliJson<any[]>(["audit", "--owner", "owner@example.com"], { db: server.db }).filter(
      (e) => e.objectId === big && e.action === "submissions.expired",
    );
    expect(lines.map((e) => e.detail.submissions)).toEqual([200, 500, 500]);
    expect(lines[0]).toMatchObject({
      actorKind: "system",
      actorId: "retention",
      teamId: personalTeamId(owner.ownerId),
      actorRole: null,
    });
  });
});

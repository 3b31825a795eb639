import { beforeAll, describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { useServer } from "../helpers/fixture";
import { cliJson, seedKey } from "../helpers/harness";
import { keptCounts, recount } from "../helpers/recount";

const DAY = 86_400_000;
const clock = fixedClock("2026-10-30T10:00:00.000Z");
const server = useServer({
  clock,
  config: { rateLimit: 100_000, trustProxy: true, clientIpHeader: "CF-Connecting-IP" },
});
const { send } = server;
const owner = server.seed("owner@example.com", {
  formType: "waitlist",
  usersJoinedEnabled: true,
  emailEnabled: true,
  developerNotifications: true,
});
const other = server.seed("other@example.com");
let publishable: string;

const submit = async (formId: string, data: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await server.submit(owner.key, formId, data, headers);
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
};
const form = async () => (await send("GET", `/forms/${owner.formId}`, owner.key)).body;

beforeAll(async () => {
  publishable = (await seedKey(server, "owner@example.com", { publishable: true })).key;
});

describe("DELETE /forms/{formId}/submissions/{submissionId}", () => {
  test("deletes one submission with its queued notification; counts, joiners and analytics stay equal to a recount", async () => {
    const ids: string[] = [];
    // Across days and months, countries and browsers, two by the same person.
    for (const [i, email] of [
      "ann@example.com",
      "bob@example.com",
      "ANN@example.com",
      null,
      "cat@example.com",
    ].entries()) {
      clock.set(Date.parse("2026-10-30T10:00:00.000Z") + i * 2 * DAY);
      ids.push(
        await submit(owner.formId, email ? { email, i } : { i }, {
          "cf-ipcountry": ["DE", "FR", "DE", "US", "JP"][i]!,
          "user-agent": i % 2 ? "curl/8" : "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
        }),
      );
    }
    expect((await form()).usersJoinedSettings.count).toBe(4);
    expect(await keptCounts(server, owner.formId)).toEqual(await recount(server, owner.formId));

    for (const [id, joined] of [
      [ids[0]!, 4],
      [ids[2]!, 3],
      [ids[3]!, 2],
    ] as const) {
      const res = await send("DELETE", `/forms/${owner.formId}/submissions/${id}`, owner.key);
      expect([res.status, res.body]).toEqual([200, { id, deleted: true }]);
      // Ann stays a joiner while a submission of hers is left; the one without an email counted once.
      expect((await form()).usersJoinedSettings.count).toBe(joined);
      expect(await keptCounts(server, owner.formId)).toEqual(await recount(server, owner.formId));
      expect((await server.query("SELECT count(*) AS n FROM outbox WHERE submission_id = ?", id))[0].n).toBe(0);
    }
    const left = (await send("GET", `/forms/${owner.formId}/submissions`, owner.key)).body.submissions.map(
      (s: { id: string }) => s.id,
    );
    expect(left.sort()).toEqual([ids[1], ids[4]].sort());
    expect((await form()).submissionCount).toBe(2);
    const analytics = (
      await send("GET", `/forms/${owner.formId}/analytics?startDate=2026-10-01&endDate=2026-11-30`, owner.key)
    ).body;
    expect(analytics.totalSubmissions).toBe(2);
    expect(analytics.topCountries).toEqual([
      { country: "FR", count: 1 },
      { country: "JP", count: 1 },
    ]);
  });

  test("deletes a spam submission without touching any count", async () => {
    const id = await submit(owner.formId, { email: "spam@example.com", _gotcha: "bot" });
    const before = await keptCounts(server, owner.formId);
    expect((await send("DELETE", `/forms/${owner.formId}/submissions/${id}`, owner.key)).status).toBe(200);
    expect(await keptCounts(server, owner.formId)).toEqual(before);
    expect((await send("GET", `/forms/${owner.formId}/submissions?status=spam`, owner.key)).body.submissions).toEqual(
      [],
    );
  });

  test("answers 404 for a submission of another form or none, 403 for another owner's form or a publishable key, in that order", async () => {
    const theirs = (
      await server.json("/api/v1/forms/submit", {
        method: "POST",
        key: other.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ formId: other.formId, data: { n: 1 } }),
      })
    ).body.submissionId;
    const mine = await submit(owner.formId, { n: 2 });
    const cases: [string, string | undefined, number, string][] = [
      [`/forms/${owner.formId}/submissions/${theirs}`, owner.key, 404, "NOT_FOUND"],
      [`/forms/${owner.formId}/submissions/sub_missing`, owner.key, 404, "NOT_FOUND"],
      [`/forms/frm_missing/submissions/${mine}`, owner.key, 404, "FORM_NOT_FOUND"],
      [`/forms/${other.formId}/submissions/${theirs}`, owner.key, 403, "FORBIDDEN"],
      [`/forms/${owner.formId}/submissions/${mine}`, publishable, 403, "KEY_SCOPE"],
      [`/forms/${owner.formId}/submissions/${mine}`, "fsk_wrong", 401, "UNAUTHORIZED"],
    ];
    for (const [path, key, status, code] of cases) {
      for (const suffix of ["", "/spam", "/not-spam"]) {
        const res = await send(suffix ? "POST" : "DELETE", path + suffix, key);
        expect([path + suffix, res.status, res.body.code]).toEqual([path + suffix, status, code]);
      }
    }
    expect(
      (await send("GET", `/forms/${other.formId}/submissions`, other.key)).body.submissions.map(
        (s: { id: string }) => s.id,
      ),
    ).toEqual([theirs]);
    expect((await send("DELETE", `/forms/${owner.formId}/submissions/${mine}`, owner.key)).status).toBe(200);
    expect((await send("DELETE", `/forms/${owner.formId}/submissions/${mine}`, owner.key)).status).toBe(404);
  });
});

describe("POST /forms/{formId}/submissions/{submissionId}/spam and /not-spam", () => {
  test("move a submission out of the inbox and back, as the command line does, with every count following", async () => {
    const id = await submit(owner.formId, { email: "dee@example.com" });
    const before = await form();
    const out = await send("POST", `/forms/${owner.formId}/submissions/${id}/spam`, owner.key);
    expect([out.status, out.body]).toEqual([200, { id, status: "spam", moved: true }]);
    expect((await form()).submissionCount).toBe(before.submissionCount - 1);
    expect(await keptCounts(server, owner.formId)).toEqual(await recount(server, owner.formId));
    expect((await send("POST", `/forms/${owner.formId}/submissions/${id}/spam`, owner.key)).body).toEqual({
      id,
      status: "spam",
      moved: false,
    });
    const back = await send("POST", `/forms/${owner.formId}/submissions/${id}/not-spam`, owner.key);
    expect(back.body).toEqual({ id, status: "inbox", moved: true });
    expect(await form()).toMatchObject({
      submissionCount: before.submissionCount,
      usersJoinedSettings: before.usersJoinedSettings,
    });
    expect(await keptCounts(server, owner.formId)).toEqual(await recount(server, owner.formId));
    expect(cliJson(["submissions", "not-spam", id], { db: server.db })).toEqual({ id, status: "inbox", moved: false });
  });
});

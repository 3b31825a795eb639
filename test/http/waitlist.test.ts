import { describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { useServer } from "../helpers/fixture";
import { cliJson, seedForm, seedOwner } from "../helpers/harness";
import { keptCounts, recount } from "../helpers/recount";

const server = useServer();
const owner = server.seed("owner@example.com", { name: "Launch", formType: "waitlist", usersJoinedEnabled: true });

const join = (data: Record<string, unknown>, formId = owner.formId) => server.submit(owner.key, formId, data);
const joined = async (formId = owner.formId) => server.json(`/api/v1/forms/${formId}/users-joined`, { key: owner.key });

describe("GET /api/v1/forms/{formId}/users-joined", () => {
  test("counts distinct emails case-insensitively and email-less joiners once each", async () => {
    for (const data of [
      { email: "ada@example.com" },
      { email: " ADA@example.com " },
      { Email: "bob@example.com" },
      { name: "no email" },
      { name: "no email" },
    ]) {
      expect((await join(data)).status).toBe(200);
    }
    await Promise.all([join({ email: "cy@example.com" }), join({ email: "CY@example.com" })]);
    const { status, body } = await joined();
    expect(status).toBe(200);
    expect(body).toEqual({ usersJoined: 5 });
    const form = await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key });
    expect(form.body.usersJoinedSettings).toEqual({ enabled: true, count: 5 });
    expect(form.body.submissionCount).toBe(7);
  });

  test("one address joining many times at once (one batch) is one joiner holding every submission, as a recount finds", async () => {
    const { id: form } = await seedForm(server, "owner@example.com", {
      name: "Rush",
      formType: "waitlist",
      usersJoinedEnabled: true,
    });
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => join({ email: i % 2 ? "dee@example.com" : "DEE@example.com" }, form)),
      join({ email: "eve@example.com" }, form),
      join({ email: "eve@example.com" }, form),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect((await joined(form)).body).toEqual({ usersJoined: 2 });
    const kept = await keptCounts(server, form);
    expect(kept.joiners).toEqual([
      { email: "dee@example.com", submissions: 8 },
      { email: "eve@example.com", submissions: 2 },
    ]);
    expect(kept).toEqual(await recount(server, form));
  });

  test("answers 0 while the counter is off, and the count again when it is back on", async () => {
    await server.services.forms.updateForm(OPERATOR, owner.formId, { usersJoinedEnabled: false });
    expect((await joined()).body).toEqual({ usersJoined: 0 });
    expect((await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key })).body.usersJoinedSettings).toEqual({
      enabled: false,
      count: 0,
    });
    await server.services.forms.updateForm(OPERATOR, owner.formId, { usersJoinedEnabled: true });
    expect((await joined()).body).toEqual({ usersJoined: 5 });
  });

  test("is a 404 for forms that are not waitlists, and for unknown forms; 403 for another owner's", async () => {
    const contact = await seedForm(server, "owner@example.com", { name: "Contact", formType: "contact" });
    expect((await joined(contact.id)).status).toBe(404);
    expect((await server.json(`/api/v1/forms/${contact.id}`, { key: owner.key })).body.usersJoinedSettings).toBeNull();
    expect((await joined("frm_missing")).status).toBe(404);
    const theirs = await seedOwner(server, "other@example.com", { formType: "waitlist" });
    expect((await joined(theirs.formId)).status).toBe(403);
  });

  test("a form made a waitlist by the command line counts the joiners it already had, and goes on counting", async () => {
    const form = await seedForm(server, "owner@example.com", {
      name: "Becomes a waitlist",
      formType: "contact",
      usersJoinedEnabled: true,
    });
    for (const data of [
      { email: "ann@example.com" },
      { email: "ANN@example.com" },
      { name: "no email" },
      { contactEmail: "ben@example.com" },
    ]) {
      expect((await join(data, form.id)).status).toBe(200);
    }
    // Only waitlists keep joiners: a contact form's submissions write none.
    expect(await server.query("SELECT count(*) AS n FROM waitlist_joiners WHERE form_id = ?", form.id)).toEqual([
      { n: 0 },
    ]);

    const shown = cliJson(["forms", "update", form.id, "--type", "waitlist"], { db: server.db });
    expect(shown.usersJoinedSettings).toEqual({ enabled: true, count: 3 });
    expect((await joined(form.id)).body).toEqual({ usersJoined: 3 });
    for (const data of [{ email: "ann@example.com" }, { email: "cat@example.com" }, { name: "no email" }]) {
      expect((await join(data, form.id)).status).toBe(200);
    }
    expect((await joined(form.id)).body).toEqual({ usersJoined: 5 });

    cliJson(["forms", "update", form.id, "--type", "contact"], { db: server.db });
    expect((await joined(form.id)).status).toBe(404);
    expect((await join({ email: "dan@example.com" }, form.id)).status).toBe(200);
    cliJson(["forms", "update", form.id, "--type", "waitlist"], { db: server.db });
    expect((await joined(form.id)).body).toEqual({ usersJoined: 6 });
  });

  test("the form as answered equals a recount after every round of concurrent joins, the form staying cached between them", async () => {
    const { id: form } = await seedForm(server, "owner@example.com", {
      name: "Rounds",
      formType: "waitlist",
      usersJoinedEnabled: true,
    });
    const rounds: Record<string, unknown>[][] = [
      [{ email: "fay@example.com" }, { email: "FAY@example.com" }, { name: "no email" }],
      [{ email: "gus@example.com" }, { email: "fay@example.com" }, { email: "hal@example.com" }, { name: "x" }],
      [{ email: "gus@example.com" }],
      Array.from({ length: 12 }, (_, i) => ({ email: `p${i % 5}@example.com` })),
    ];
    // Read once first, so the form is cached before the first commit.
    expect((await server.json(`/api/v1/forms/${form}`, { key: owner.key })).body.submissionCount).toBe(0);
    for (const [i, round] of rounds.entries()) {
      const answers = await Promise.all(round.map((data) => join(data, form)));
      expect(answers.map((a) => a.status)).toEqual(round.map(() => 200));
      const shown = (await server.json(`/api/v1/forms/${form}`, { key: owner.key })).body;
      const counted = await recount(server, form);
      expect({
        round: i,
        submissionCount: shown.submissionCount,
        usersJoined: shown.usersJoinedSettings.count,
      }).toEqual({
        round: i,
        submissionCount: counted.submissionCount,
        usersJoined: counted.usersJoined,
      });
    }
  });
});

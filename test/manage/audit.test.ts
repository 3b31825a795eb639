import { beforeAll, describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";
import { cliJson, runCli, runCliAsync } from "../helpers/harness";
import { ownerPrincipal } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";

const server = useServer({ config: { rateLimit: 100_000 } });
const { send } = server;
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");
const secrets: string[] = [];

beforeAll(() => void secrets.push(owner.key, other.key));

describe("formsvc audit", () => {
  test("lists who changed what, newest first, with the actor's kind (key over HTTP, cli at the command line), never a secret or submitted data", async () => {
    const made = (await send("POST", "/keys", owner.key, { name: "ci" })).body;
    secrets.push(made.key);
    const form = (await send("POST", "/forms", made.key, { name: "Audited" })).body;
    await send("PATCH", `/forms/${form.id}`, made.key, { name: "Audited twice", retentionDays: 10 });
    const sub = (
      await send("POST", "/forms/submit", made.key, {
        formId: form.id,
        data: { email: "secret.person@example.com", message: "private words" },
      })
    ).body.submissionId;
    await send("POST", `/forms/${form.id}/submissions/${sub}/spam`, made.key);
    await send("DELETE", `/forms/${form.id}/submissions/${sub}`, made.key);
    await send("POST", "/forms/submit", made.key, { formId: form.id, data: { email: "secret.person@example.com" } });
    expect(
      (await runCliAsync(["submissions", "erase", "--email", "secret.person@example.com"], { db: server.db })).code,
    ).toBe(0);
    await send("DELETE", `/forms/${form.id}`, made.key);
    await send("DELETE", `/keys/${made.id}`, owner.key);
    expect(runCli(["forms", "update", owner.formId, "--description", "by hand"], { db: server.db }).code).toBe(0);

    const events = cliJson<any[]>(["audit", "--owner", "owner@example.com"], { db: server.db });
    const lines = events.map((e) => [e.actorKind, e.actorId, e.action, e.objectId]);
    expect(lines.slice(0, 10)).toEqual([
      ["cli", "cli", "form.updated", owner.formId],
      ["key", owner.keyId, "key.revoked", made.id],
      ["key", made.id, "form.deleted", form.id],
      ["cli", "cli", "submissions.erased", form.id],
      ["key", made.id, "submission.deleted", sub],
      ["key", made.id, "submission.moved", sub],
      ["key", made.id, "form.updated", form.id],
      ["key", made.id, "form.created", form.id],
      ["key", owner.keyId, "key.created", made.id],
      ["cli", "cli", "form.created", owner.formId],
    ]);
    expect(events.every((e) => e.teamId === personalTeamId(owner.ownerId))).toBe(true);
    // A key's line names the person who made the key and the key's role in the team; the command line's neither.
    expect(events.filter((e) => e.actorKind === "key").map((e) => [e.actorEmail, e.actorRole])).toContainEqual([
      "owner@example.com",
      "admin",
    ]);
    expect(
      events.filter((e) => e.actorKind === "cli").every((e) => e.actorRole === null && e.actorEmail === null),
    ).toBe(true);
    expect(events[0].detail).toEqual({ fields: ["description"] });
    expect(events[6].detail).toEqual({ fields: ["name", "retentionDays"] });
    expect(events[3].detail).toEqual({ submissions: 1 });
    expect(new Date(events[0].at).getTime()).toBeGreaterThanOrEqual(new Date(events[9].at).getTime());

    const everything =
      JSON.stringify(await server.query("SELECT * FROM audit_events")) +
      runCli(["audit"], { db: server.db }).stdout +
      JSON.stringify(events);
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toContain("secret.person");
    expect(everything).not.toContain("private words");
  });

  test("records what a session does as the session's: the seam the accounts module writes logins through", async () => {
    const session = { ...ownerPrincipal(other.ownerId), keyId: "ses_0123", right: "forms.edit" as const };
    await server.services.audit.record(session, session.team, "owner.login", "ses_0123");
    await server.services.forms.updateForm(session, other.formId, { description: "from the dashboard" });
    const [changed, login] = cliJson<any[]>(["audit", "--owner", "other@example.com", "--limit", "2"], {
      db: server.db,
    });
    expect([login.actorKind, login.actorId, login.action, login.objectId]).toEqual([
      "session",
      "ses_0123",
      "owner.login",
      "ses_0123",
    ]);
    expect([changed.actorKind, changed.actorId, changed.action]).toEqual(["session", "ses_0123", "form.updated"]);
  });

  test("keeps to one owner with --owner, prints a table without --json, and refuses a bad --limit", () => {
    const theirs = cliJson<any[]>(["audit", "--owner", "other@example.com"], { db: server.db });
    expect(theirs.map((e) => [e.action, e.objectId]).slice(-2)).toEqual([
      ["form.created", other.formId],
      ["key.created", other.keyId],
    ]);
    expect(theirs.every((e) => e.teamId === personalTeamId(other.ownerId))).toBe(true);
    expect(cliJson<any[]>(["audit", "--owner", "nobody@example.com"], { db: server.db })).toEqual([]);
    expect(cliJson<any[]>(["audit", "--limit", "2"], { db: server.db }).length).toBe(2);
    const text = runCli(["audit"], { db: server.db }).stdout;
    expect(text).toMatch(/^TIME\s+TEAM\s+ACTOR\s+ROLE\s+ACTION\s+OBJECT\s+DETAIL/);
    expect(text).toContain(`key ${owner.keyId}`);
    const bad = runCli(["audit", "--limit", "0"], { db: server.db });
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("--limit")]);
  });
});

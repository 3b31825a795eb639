import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { joinTeam, login, session, withPassword } from "../helpers/accounts";
import { useServer } from "../helpers/fixture";
import { personalTeamId, RIGHTS, ROLES, type Role } from "../../src/lib/rights";

const server = useServer({ config: { rateLimit: 100_000 } });

/** Someone who logs in: their session's cookie, and their owner id. */
interface Person {
  email: string;
  id: string;
  cookie: string;
}

let people = 0;
/** A new person with a password, logged in (the name keeps each test's people apart). */
async function person(name: string): Promise<Person> {
  const email = `${name}.${++people}@example.com`;
  await withPassword(server, email);
  const { cookie } = await login(server, email);
  const owner = (await server.services.owners.findOwner(email))!;
  return { email, id: owner.id, cookie: cookie! };
}

/**
 * `method /api/v1{path}` as `who`: a person's session (from the server's own page) or a key. Answers are
 * checked against the OpenAPI document by the harness.
 */
function as(who: Person | string, method: string, path: string, body?: unknown) {
  if (typeof who === "string") return server.send(method, path, who, body);
  const headers: Record<string, string> = session(server, who.cookie);
  if (body !== undefined) headers["content-type"] = "application/json";
  return server.json(`/api/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Makes `who` a member of the team with `role`, as an accepted invitation would (invitations are tested on their own). */
async function join(teamId: string, who: Person, role: Role): Promise<void> {
  await joinTeam(server, teamId, who.id, role);
}

/** A new team of `owner`'s, with a form in it, a submission, and a key of the team (admin). */
async function teamWithForm(owner: Person, name = "Agency") {
  const team = (await as(owner, "POST", "/teams", { name })).body;
  const key = (await as(owner, "POST", "/keys", { teamId: team.id, name: "site" })).body;
  const form = (await as(owner, "POST", "/forms", { name: "Contact", teamId: team.id })).body;
  const submitted = await server.submit(key.key, form.id, { email: "ada@example.com", message: "hello" });
  expect(submitted.status).toBe(200);
  return { team, key, form, submissionId: submitted.body.submissionId as string };
}

const roleOf = async (teamId: string, who: Person) =>
  (await server.query("SELECT role FROM team_members WHERE team_id = ? AND owner_id = ?", teamId, who.id))[0]?.role;

describe("POST /teams and GET /teams", () => {
  test("the person who makes a team is its owner; it lists beside their personal team, with their role", async () => {
    const boss = await person("boss");
    const made = await as(boss, "POST", "/teams", { name: "  Agency  " });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: "Agency", personal: false, role: "owner" });
    expect(made.body.id).toMatch(/^tm_/);
    const listed = await as(boss, "GET", "/teams");
    expect(listed.status).toBe(200);
    expect(listed.body.map((t: any) => [t.id, t.role, t.personal])).toEqual([
      [personalTeamId(boss.id), "owner", true],
      [made.body.id, "owner", false],
    ]);
    expect(await roleOf(made.body.id, boss)).toBe("owner");
  });

  test("a key cannot make a team (401: it takes a session), and lists only its own team with its own role", async () => {
    const boss = await person("boss");
    const { team, key } = await teamWithForm(boss);
    const viewerKey = (await as(boss, "POST", "/keys", { teamId: team.id, role: "viewer" })).body.key;
    const refused = await as(key.key, "POST", "/teams", { name: "Mine" });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("UNAUTHORIZED");
    expect((await server.query("SELECT count(*) AS n FROM teams WHERE name = 'Mine'"))[0].n).toBe(0);
    expect((await as(viewerKey, "GET", "/teams")).body.map((t: any) => [t.id, t.role])).toEqual([[team.id, "viewer"]]);
  });

  test("refuses a blank or overlong name, or another field, with 400, and makes nothing", async () => {
    const boss = await person("boss");
    for (const body of [{ name: "   " }, { name: "x".repeat(101) }, { name: "A", color: "red" }, {}]) {
      const res = await as(boss, "POST", "/teams", body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBeString();
    }
    expect((await as(boss, "GET", "/teams")).body).toHaveLength(1);
  });
});

describe("roles in a team", () => {
  test("a viewer reads the team's form and submissions, and gets 403 ROLE_TOO_LOW on every change", async () => {
    const boss = await person("boss");
    const viewer = await person("viewer");
    const { team, key, form, submissionId } = await teamWithForm(boss);
    await join(team.id, viewer, "viewer");

    expect((await as(viewer, "GET", "/teams")).body.find((t: any) => t.id === team.id)?.role).toBe("viewer");
    expect((await as(viewer, "GET", `/forms/${form.id}`)).body.id).toBe(form.id);
    const inbox = await as(viewer, "GET", `/forms/${form.id}/submissions`);
    expect(inbox.status).toBe(200);
    expect(inbox.body.submissions.map((s: any) => s.id)).toEqual([submissionId]);
    expect((await as(viewer, "GET", `/forms/${form.id}/submissions/${submissionId}`)).status).toBe(200);
    expect((await as(viewer, "GET", `/teams/${team.id}/members`)).body.map((m: any) => [m.email, m.role])).toEqual([
      [boss.email, "owner"],
      [viewer.email, "viewer"],
    ]);

    const changes: [string, string, unknown?][] = [
      ["PATCH", `/forms/${form.id}`, { name: "Renamed" }],
      ["DELETE", `/forms/${form.id}`],
      ["DELETE", `/forms/${form.id}/submissions/${submissionId}`],
      ["POST", `/forms/${form.id}/submissions/${submissionId}/spam`],
      ["POST", "/keys", { teamId: team.id }],
      ["DELETE", `/keys/${key.id}`],
      ["PATCH", `/teams/${team.id}`, { name: "Renamed" }],
      ["DELETE", `/teams/${team.id}`],
      ["PATCH", `/teams/${team.id}/members/${viewer.id}`, { role: "admin" }],
      ["GET", `/teams/${team.id}/audit`],
    ];
    for (const [method, path, body] of changes) {
      const res = await as(viewer, method, path, body);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, "ROLE_TOO_LOW"]);
    }
    expect((await as(boss, "GET", `/forms/${form.id}`)).body.name).toBe("Contact");
    expect((await server.query("SELECT status FROM submissions WHERE id = ?", submissionId))[0].status).toBe("inbox");
    expect(await roleOf(team.id, viewer)).toBe("viewer");
  });

  test("an editor marks and deletes submissions, but cannot delete the form or manage keys", async () => {
    const boss = await person("boss");
    const editor = await person("editor");
    const { team, key, form, submissionId } = await teamWithForm(boss);
    await join(team.id, editor, "editor");

    expect((await as(editor, "PATCH", `/forms/${form.id}`, { description: "Edited" })).status).toBe(200);
    expect((await as(editor, "POST", `/forms/${form.id}/submissions/${submissionId}/spam`)).status).toBe(200);
    expect((await as(editor, "DELETE", `/forms/${form.id}/submissions/${submissionId}`)).status).toBe(200);
    expect(await server.query("SELECT id FROM submissions WHERE id = ?", submissionId)).toEqual([]);

    for (const [method, path, body] of [
      ["DELETE", `/forms/${form.id}`],
      ["POST", "/keys", { teamId: team.id }],
      ["DELETE", `/keys/${key.id}`],
      ["DELETE", `/teams/${team.id}/members/${boss.id}`],
    ] as [string, string, unknown?][]) {
      const res = await as(editor, method, path, body);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, "ROLE_TOO_LOW"]);
    }
    expect((await as(boss, "GET", `/forms/${form.id}`)).status).toBe(200);
    expect((await server.query("SELECT active FROM api_keys WHERE id = ?", key.id))[0].active).toBe(1);
  });

  test("an admin manages keys and members below owner, never an owner, and a removed member's session loses the team at once", async () => {
    const boss = await person("boss");
    const admin = await person("admin");
    const member = await person("member");
    const { team, form } = await teamWithForm(boss);
    await join(team.id, admin, "admin");
    await join(team.id, member, "editor");

    const made = await as(admin, "POST", "/keys", { teamId: team.id, role: "editor" });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ teamId: team.id, role: "editor" });
    expect((await as(admin, "DELETE", `/keys/${made.body.id}`)).status).toBe(200);

    const demoted = await as(admin, "PATCH", `/teams/${team.id}/members/${member.id}`, { role: "viewer" });
    expect(demoted.status).toBe(200);
    expect(demoted.body).toMatchObject({ ownerId: member.id, email: member.email, role: "viewer" });
    expect((await as(member, "PATCH", `/forms/${form.id}`, { name: "x" })).body.code).toBe("ROLE_TOO_LOW");

    for (const [method, path, body] of [
      ["PATCH", `/teams/${team.id}/members/${member.id}`, { role: "owner" }],
      ["PATCH", `/teams/${team.id}/members/${admin.id}`, { role: "owner" }],
      ["PATCH", `/teams/${team.id}/members/${boss.id}`, { role: "admin" }],
      ["DELETE", `/teams/${team.id}/members/${boss.id}`],
      ["DELETE", `/teams/${team.id}`],
    ] as [string, string, unknown?][]) {
      const res = await as(admin, method, path, body);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, "ROLE_TOO_LOW"]);
    }
    expect(await roleOf(team.id, boss)).toBe("owner");
    expect(await roleOf(team.id, admin)).toBe("admin");

    const removed = await as(admin, "DELETE", `/teams/${team.id}/members/${member.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ ownerId: member.id, role: "viewer" });
    expect(await roleOf(team.id, member)).toBeUndefined();
    const after = await as(member, "GET", `/forms/${form.id}`);
    expect([after.status, after.body.code]).toEqual([403, "FORBIDDEN"]);
    expect((await as(member, "GET", "/teams")).body.map((t: any) => t.id)).toEqual([personalTeamId(member.id)]);
  });

  test("only an owner makes an owner; the last owner cannot leave or be demoted; anyone else may leave", async () => {
    const boss = await person("boss");
    const partner = await person("partner");
    const viewer = await person("viewer");
    const { team } = await teamWithForm(boss);
    await join(team.id, partner, "admin");
    await join(team.id, viewer, "viewer");

    for (const [method, body] of [
      ["DELETE", undefined],
      ["PATCH", { role: "admin" }],
    ] as [string, unknown][]) {
      const res = await as(boss, method, `/teams/${team.id}/members/${boss.id}`, body);
      expect([res.status, res.body.code]).toEqual([409, "CONFLICT"]);
      expect(res.body.error).toContain("last owner");
    }
    expect(await roleOf(team.id, boss)).toBe("owner");

    // A viewer leaves by themselves; nobody else's removal is theirs to make.
    expect((await as(viewer, "DELETE", `/teams/${team.id}/members/${partner.id}`)).body.code).toBe("ROLE_TOO_LOW");
    expect((await as(viewer, "DELETE", `/teams/${team.id}/members/${viewer.id}`)).status).toBe(200);
    expect(await roleOf(team.id, viewer)).toBeUndefined();

    expect((await as(boss, "PATCH", `/teams/${team.id}/members/${partner.id}`, { role: "owner" })).body.role).toBe(
      "owner",
    );
    // With two owners, the first may leave; then the second is the last.
    expect((await as(boss, "DELETE", `/teams/${team.id}/members/${boss.id}`)).status).toBe(200);
    const last = await as(partner, "DELETE", `/teams/${team.id}/members/${partner.id}`);
    expect([last.status, last.body.code]).toEqual([409, "CONFLICT"]);
    expect(await roleOf(team.id, partner)).toBe("owner");
  });

  test("a personal team is never deleted, and its person never leaves it nor is demoted in it", async () => {
    const boss = await person("boss");
    const partner = await person("partner");
    const personal = personalTeamId(boss.id);
    await join(personal, partner, "owner");
    const refusals = [
      await as(boss, "DELETE", `/teams/${personal}`),
      await as(boss, "DELETE", `/teams/${personal}/members/${boss.id}`),
      await as(partner, "DELETE", `/teams/${personal}/members/${boss.id}`),
      await as(partner, "PATCH", `/teams/${personal}/members/${boss.id}`, { role: "viewer" }),
    ];
    expect(refusals.map((r) => [r.status, r.body.code])).toEqual(Array(4).fill([409, "CONFLICT"]));
    expect(refusals[1]!.body.error).toContain("personal team");
    expect(await roleOf(personal, boss)).toBe("owner");
  });

  test("names a member who is not in the team with 404, and a role that does not exist with 400", async () => {
    const boss = await person("boss");
    const stranger = await person("stranger");
    const { team } = await teamWithForm(boss);
    const missing = await as(boss, "PATCH", `/teams/${team.id}/members/${stranger.id}`, { role: "viewer" });
    expect([missing.status, missing.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await as(boss, "DELETE", `/teams/${team.id}/members/${stranger.id}`)).status).toBe(404);
    const bad = await as(boss, "PATCH", `/teams/${team.id}/members/${boss.id}`, { role: "god" });
    expect([bad.status, bad.body.error]).toEqual([400, "role must be viewer, editor, admin or owner"]);
    // Outside the team, as for another team's form.
    const outside = await as(stranger, "GET", `/teams/${team.id}/members`);
    expect([outside.status, outside.body.code]).toEqual([403, "FORBIDDEN"]);
    expect(await roleOf(team.id, stranger)).toBeUndefined();
  });
});

describe("PATCH and DELETE /teams/{teamId}", () => {
  test("renames a team for an admin; refuses to delete one with forms (409, saying to move or delete them), then deletes it with its keys", async () => {
    const boss = await person("boss");
    const { team, key, form } = await teamWithForm(boss);
    const renamed = await as(boss, "PATCH", `/teams/${team.id}`, { name: "Studio" });
    expect(renamed.body).toMatchObject({ id: team.id, name: "Studio", role: "owner" });

    const refused = await as(boss, "DELETE", `/teams/${team.id}`);
    expect([refused.status, refused.body.code]).toEqual([409, "CONFLICT"]);
    expect(refused.body.error).toContain("1 form: move them to another team");
    expect((await as(key.key, "GET", `/forms/${form.id}`)).status).toBe(200);

    expect((await as(boss, "DELETE", `/forms/${form.id}`)).status).toBe(200);
    const deleted = await as(boss, "DELETE", `/teams/${team.id}`);
    expect(deleted.body).toEqual({ id: team.id, deleted: true });
    expect(await server.query("SELECT id FROM teams WHERE id = ?", team.id)).toEqual([]);
    // Its key stops working at once (it was read, so cached, a moment ago).
    expect((await as(key.key, "GET", "/teams")).status).toBe(401);
    expect((await as(boss, "GET", "/teams")).body.map((t: any) => t.id)).toEqual([personalTeamId(boss.id)]);
    const trail = await server.services.audit.list({ teamId: team.id, limit: 1 });
    expect(trail[0]).toMatchObject({ action: "team.deleted", actorEmail: boss.email, actorRole: "owner" });
  });
});

describe("POST /forms/{formId}/move", () => {
  test("needs an admin or owner of both teams; the form then leaves the old team's keys behind", async () => {
    const boss = await person("boss");
    const mover = await person("mover");
    const { team: from, key: fromKey, form } = await teamWithForm(boss, "From");
    const to = (await as(boss, "POST", "/teams", { name: "To" })).body;
    await join(from.id, mover, "admin");
    await join(to.id, mover, "editor");

    const low = await as(mover, "POST", `/forms/${form.id}/move`, { teamId: to.id });
    expect([low.status, low.body.code]).toEqual([403, "ROLE_TOO_LOW"]);
    const outside = await as(mover, "POST", `/forms/${form.id}/move`, { teamId: personalTeamId(boss.id) });
    expect([outside.status, outside.body.code]).toEqual([403, "FORBIDDEN"]);
    // A key acts in one team: it can never be an admin of the other.
    expect((await as(fromKey.key, "POST", `/forms/${form.id}/move`, { teamId: to.id })).body.code).toBe("FORBIDDEN");
    expect((await server.query("SELECT team_id FROM forms WHERE id = ?", form.id))[0].team_id).toBe(from.id);

    await as(boss, "PATCH", `/teams/${to.id}/members/${mover.id}`, { role: "admin" });
    const moved = await as(mover, "POST", `/forms/${form.id}/move`, { teamId: to.id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: form.id, teamId: to.id });
    expect((await as(fromKey.key, "GET", `/forms/${form.id}`)).status).toBe(403);
    expect((await as(boss, "GET", `/forms/${form.id}/submissions`)).body.submissions).toHaveLength(1);
  });
});

describe("GET /teams/{teamId}/audit", () => {
  test("shows the team's changes newest first, with the team, the actor and its role; admins and owners only", async () => {
    const boss = await person("boss");
    const admin = await person("admin");
    const { team, key, form } = await teamWithForm(boss);
    await join(team.id, admin, "admin");
    await as(admin, "PATCH", `/teams/${team.id}`, { name: "Renamed" });
    await as(key.key, "PATCH", `/forms/${form.id}`, { description: "by the key" });

    const res = await as(admin, "GET", `/teams/${team.id}/audit`);
    expect(res.status).toBe(200);
    expect(res.body.map((e: any) => [e.action, e.actorKind, e.actorEmail, e.actorRole])).toEqual([
      ["form.updated", "key", boss.email, "admin"],
      ["team.renamed", "session", admin.email, "admin"],
      ["form.created", "session", boss.email, "owner"],
      ["key.created", "session", boss.email, "owner"],
      ["team.created", "session", boss.email, "owner"],
    ]);
    expect(res.body.every((e: any) => e.teamId === team.id)).toBe(true);
    expect(res.body[1].detail).toEqual({ from: "Agency", to: "Renamed" });
    expect((await as(admin, "GET", `/teams/${team.id}/audit?limit=2`)).body).toHaveLength(2);
    expect((await as(admin, "GET", `/teams/${team.id}/audit?limit=0`)).status).toBe(400);
    // The trail shows its member changes too, with who was changed.
    await as(boss, "PATCH", `/teams/${team.id}/members/${admin.id}`, { role: "editor" });
    const [latest] = (await as(boss, "GET", `/teams/${team.id}/audit?limit=1`)).body;
    expect(latest).toMatchObject({
      action: "member.role",
      objectId: admin.id,
      actorRole: "owner",
      detail: { email: admin.email, from: "admin", to: "editor" },
    });
    expect((await as(admin, "GET", `/teams/${team.id}/audit`)).body.code).toBe("ROLE_TOO_LOW");
  });
});

describe("the client library", () => {
  test("calls every team route as a session, and tells a key's refusals apart by code", async () => {
    const boss = await person("boss");
    const member = await person("member");
    const client = new FormsvcClient({
      baseUrl: `${server.url}/api/v1`,
      fetch: (url, init) => {
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(session(server, boss.cookie))) headers.set(name, value);
        return server.fetch(url, { ...init, headers });
      },
    });
    const team = await client.createTeam({ name: "Client" });
    expect(team).toMatchObject({ name: "Client", role: "owner", personal: false });
    expect((await client.listTeams()).map((t) => t.id)).toContain(team.id);
    expect((await client.updateTeam(team.id, { name: "Clients" })).name).toBe("Clients");
    await join(team.id, member, "viewer");
    expect((await client.setMemberRole(team.id, member.id, "editor")).role).toBe("editor");
    expect((await client.listMembers(team.id)).map((m) => [m.email, m.role])).toEqual([
      [boss.email, "owner"],
      [member.email, "editor"],
    ]);
    expect((await client.removeMember(team.id, member.id)).email).toBe(member.email);
    const form = await client.createForm({ name: "Moving" });
    expect((await client.moveForm(form.id, team.id)).teamId).toBe(team.id);
    const refused = await client.deleteTeam(team.id).then(
      () => null,
      (e: unknown) => e instanceof FormsvcError && e.code,
    );
    expect(refused).toBe("CONFLICT");
    expect((await client.moveForm(form.id, personalTeamId(boss.id))).teamId).toBe(personalTeamId(boss.id));
    expect(await client.deleteTeam(team.id)).toEqual({ id: team.id, deleted: true });
    const [latest] = await client.teamAudit(personalTeamId(boss.id), { limit: 1 });
    expect(latest).toMatchObject({ action: "form.moved", actorEmail: boss.email, actorRole: "owner" });

    const key = (await as(boss, "POST", "/keys", {})).body.key;
    const byKey = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: key, fetch: server.fetch });
    const scope = await byKey.createTeam({ name: "Nope" }).then(
      () => null,
      (e: FormsvcError) => [e.status, e.code],
    );
    expect(scope).toEqual([401, "UNAUTHORIZED"]);
  });
});

describe("docs/api.md", () => {
  test("its roles table says which role holds which right as the rights table does", () => {
    const doc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| `([a-z.]+)`: [^|]+((?:\|[^|\n]*){4})\|$/gm)].map(([, right, cells]) => {
      const held = cells!
        .split("|")
        .slice(1)
        .map((c) => c.trim() === "✓");
      return [right, ROLES[held.indexOf(true)], held.every((h, i) => h === i >= held.indexOf(true))];
    });
    expect(rows).toEqual(Object.entries(RIGHTS).map(([right, least]) => [right, least, true]));
  });
});

describe("what a membership no longer gives, no key keeps", () => {
  test("a removed admin's keys stop at once, and a demoted admin's keys fall to the new role", async () => {
    const boss = await person("boss");
    const { team } = await teamWithForm(boss);
    const leaving = await person("leaving");
    const demoted = await person("demoted");
    await join(team.id, leaving, "admin");
    await join(team.id, demoted, "admin");
    const leavingKey = (await as(leaving, "POST", "/keys", { teamId: team.id })).body.key;
    const demotedKey = (await as(demoted, "POST", "/keys", { teamId: team.id })).body.key;
    const bossKey = (await as(boss, "POST", "/keys", { teamId: team.id })).body.key;
    for (const key of [leavingKey, demotedKey])
      expect((await as(key, "GET", `/teams/${team.id}/members`)).status).toBe(200);

    expect((await as(boss, "DELETE", `/teams/${team.id}/members/${leaving.id}`)).status).toBe(200);
    expect((await as(leavingKey, "GET", `/teams/${team.id}/members`)).status).toBe(401);
    const invite = await as(leavingKey, "POST", `/teams/${team.id}/invitations`, {
      email: "back@example.com",
      role: "admin",
    });
    expect(invite.status).toBe(401);

    expect((await as(boss, "PATCH", `/teams/${team.id}/members/${demoted.id}`, { role: "viewer" })).status).toBe(200);
    const refused = await as(demotedKey, "GET", `/keys?teamId=${team.id}`);
    expect([refused.status, refused.body.code]).toEqual([403, "ROLE_TOO_LOW"]);
    expect((await as(demotedKey, "GET", `/teams/${team.id}/members`)).status).toBe(200);
    // Another's key keeps its role: only the keys the person made follow them.
    expect((await as(bossKey, "GET", `/keys?teamId=${team.id}`)).status).toBe(200);
    const trail = (await as(boss, "GET", `/teams/${team.id}/audit`)).body.map((e: any) => e.action);
    expect(trail).toEqual(expect.arrayContaining(["key.revoked", "key.role"]));
  });

  test("a form moved to another team takes what its submissions taught the team it leaves out of that team's filter, and its files", async () => {
    const boss = await person("boss");
    const { team, key, form, submissionId } = await teamWithForm(boss);
    expect((await as(key.key, "POST", `/forms/${form.id}/submissions/${submissionId}/spam`)).status).toBe(200);
    const learned = async (teamId: string) => (await as(boss, "GET", `/spam-filter?teamId=${teamId}`)).body;
    expect(await learned(team.id)).toMatchObject({ spam: 1, notSpam: 0 });
    const other = (await as(boss, "POST", "/teams", { name: "Other" })).body;
    expect((await as(boss, "POST", `/forms/${form.id}/move`, { teamId: other.id })).status).toBe(200);
    expect(await learned(team.id)).toMatchObject({ spam: 0, notSpam: 0 });
    expect(await server.query("SELECT count(*) AS n FROM spam_tokens WHERE team_id = ?", team.id)).toEqual([{ n: 0 }]);
    // Marked again in its new team, it teaches that team alone, and no count goes below zero.
    const sessionKey = (await as(boss, "POST", "/keys", { teamId: other.id })).body.key;
    expect((await as(sessionKey, "POST", `/forms/${form.id}/submissions/${submissionId}/not-spam`)).status).toBe(200);
    expect(await learned(other.id)).toMatchObject({ spam: 0, notSpam: 1 });
    expect(await learned(team.id)).toMatchObject({ spam: 0, notSpam: 0 });
  });
});

describe("limits on what a member can make formsvc send", () => {
  test("a team name with control or direction-changing characters is refused, changing nothing", async () => {
    const boss = await person("boss");
    for (const name of ["Pay\u202Eyou", "Line\nbreak", "Zero\u200Bwidth"]) {
      const res = await as(boss, "POST", "/teams", { name });
      expect([res.status, res.body.code]).toEqual([400, "INVALID_PARAMETER"]);
    }
    expect(
      await server.query("SELECT count(*) AS n FROM teams WHERE personal_of IS NULL AND name LIKE 'Pay%'"),
    ).toEqual([{ n: 0 }]);
  });

  test("a team sends at most 50 invitations a day, and a person makes at most 10 teams a day", async () => {
    const boss = await person("boss");
    const { team } = await teamWithForm(boss);
    for (let i = 0; i < 50; i++)
      expect(
        (await as(boss, "POST", `/teams/${team.id}/invitations`, { email: `i${i}@example.com`, role: "viewer" }))
          .status,
      ).toBe(200);
    const refused = await as(boss, "POST", `/teams/${team.id}/invitations`, {
      email: "one-more@example.com",
      role: "viewer",
    });
    expect([refused.status, refused.body.code]).toEqual([429, "TOO_MANY_INVITATIONS"]);
    expect(await server.query("SELECT count(*) AS n FROM invitations WHERE email = 'one-more@example.com'")).toEqual([
      { n: 0 },
    ]);
    // One team made above; nine more, then a refusal.
    for (let i = 0; i < 9; i++) expect((await as(boss, "POST", "/teams", { name: `T${i}` })).status).toBe(200);
    const eleventh = await as(boss, "POST", "/teams", { name: "T10" });
    expect([eleventh.status, eleventh.body.code]).toEqual([429, "RATE_LIMITED"]);
  });

  test("an invitation to be an owner is an owner's to replace or withdraw; a non-member learns nothing of a team's forms from POST /keys", async () => {
    const boss = await person("boss");
    const { team, form } = await teamWithForm(boss);
    const admin = await person("admin");
    await join(team.id, admin, "admin");
    const invited = await as(boss, "POST", `/teams/${team.id}/invitations`, {
      email: "heir@example.com",
      role: "owner",
    });
    expect(invited.status).toBe(200);
    const replaced = await as(admin, "POST", `/teams/${team.id}/invitations`, {
      email: "heir@example.com",
      role: "viewer",
    });
    expect([replaced.status, replaced.body.code]).toEqual([403, "ROLE_TOO_LOW"]);
    const withdrawn = await as(admin, "DELETE", `/teams/${team.id}/invitations/${invited.body.id}`);
    expect([withdrawn.status, withdrawn.body.code]).toEqual([403, "ROLE_TOO_LOW"]);
    expect(await server.query("SELECT role FROM invitations WHERE email = 'heir@example.com'")).toEqual([
      { role: "owner" },
    ]);

    const outsider = await person("outsider");
    const probe = await as(outsider, "POST", "/keys", { teamId: team.id, forms: [form.id] });
    const miss = await as(outsider, "POST", "/keys", { teamId: team.id, forms: ["frm_elsewhere"] });
    expect([probe.status, probe.body.code]).toEqual([403, "FORBIDDEN"]);
    expect([miss.status, miss.body.code]).toEqual([403, "FORBIDDEN"]);
  });
});

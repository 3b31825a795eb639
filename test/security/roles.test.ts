import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fixedClock, isoTime } from "../../src/lib/clock";
import { OPERATOR } from "../../src/lib/principal";
import { atLeast, personalTeamId, RIGHTS, type Role } from "../../src/lib/rights";
import { DEFAULT_FILES } from "../../src/modules/files/refs";
import { joinTeam, login, session, withPassword } from "../helpers/accounts";
import { onPostgres } from "../helpers/engine";
import { seedForm, seedKey, seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import {
  apiRoutes,
  expectEach,
  hasBody,
  isPublic,
  label,
  namedBy,
  namesItsTarget,
  OTHER_OWNER_STATUS,
  pathOf,
  rightOf,
  validBody,
  type Route,
} from "./routes";

/**
 * The security matrix's role dimension: every route that takes a key (matrix.test.ts), asked by
 * every role of one team and by a non-member, each with a login session and with an API key, and
 * each answer held to the rights table (lib/rights.ts RIGHTS) through the right the route states
 * (its `x-right`); a public route (submit, challenge) states none, and takes any key of the team.
 *
 * Refusals run first, each on the fixture's own objects, and must change nothing in the database.
 * Then the callers the table lets through; a call that deletes gets a fresh object of its own
 * (FRESH), made through the services, so that the fixture stays whole for the calls after it.
 */

const OWNER = "owner@example.com";
const OTHER = "other@example.com";
/** A PNG's first bytes, which its type is sniffed from. */
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

type Via = "session" | "key";
interface Caller {
  /** Who: the team's owner, a member by role, or a non-member (another owner, with a team of their own). */
  who: Role | "non-member";
  via: Via;
  /** Its role in the fixture's team; null for the non-member. */
  role: Role | null;
  /** Its role where a request that names no team acts: a key's own team, a session's personal team. */
  home: Role;
  /** Its credentials, and for a session's change the server's own Origin (CSRF). */
  headers: (write: boolean) => Record<string, string>;
}

let server: TestServer;
const own = tempDir();
let routes: Route[];
let ids: Record<string, string>;
let ownerKey: string;
const callers: Caller[] = [];

/** The fixture's team: the owner's personal team. */
let team: string;

beforeAll(async () => {
  // Pinned: a failed delivery's retry never comes due, so nothing changes in the database but what a request does.
  const clock = fixedClock(Date.now());
  server = await startTestServer({
    dir: own.dir,
    clock,
    config: {
      rateLimit: 1_000_000,
      publicRateLimit: 1_000_000,
      webhookAllowPrivate: true,
      files: join(own.dir, "files"),
    },
  });
  routes = server.app.routes as unknown as Route[];
  // A waitlist form that takes files: every route has something to answer about.
  const owner = await seedOwner(server, OWNER, { formType: "waitlist", files: DEFAULT_FILES });
  ownerKey = owner.key;
  team = personalTeamId(owner.ownerId);
  const webhook = await server.services.webhooks.addWebhook(OPERATOR, owner.formId, { url: "http://127.0.0.1:9/hook" });
  const post = new FormData();
  post.append("formId", owner.formId);
  post.append("email", "ada@example.com");
  post.append("photo", new Blob([PNG]), "dot.png");
  const submitted = await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: post });
  expect(submitted.status).toBe(200);
  const [file] = await server.query("SELECT id FROM files WHERE submission_id = ?", submitted.body.submissionId);
  const [delivery] = await server.services.webhooks.deliveries(OPERATOR, webhook.id, 1);
  ids = {
    formId: owner.formId,
    teamId: team,
    // A key of the team that is no caller's: revoking it is refused, or done on a fresh one.
    keyId: owner.keyId,
    submissionId: submitted.body.submissionId,
    fileId: file.id,
    webhookId: webhook.id,
    deliveryId: delivery!.id,
  };

  const signIn = async (email: string) => {
    await withPassword(server, email);
    const { cookie } = await login(server, email);
    return (write: boolean) => session(server, cookie!, write ? server.url : null);
  };
  const withKey = (key: string) => () => ({ "x-api-key": key });
  callers.push({ who: "owner", via: "session", role: "owner", home: "owner", headers: await signIn(OWNER) });
  for (const role of ["admin", "editor", "viewer"] as const) {
    const email = `${role}@example.com`;
    const headers = await signIn(email);
    const person = (await server.services.owners.findOwner(email))!;
    // Through the table: the members API is another part of this issue.
    await joinTeam(server, team, person.id, role, new Date(clock.now()));
    callers.push({ who: role, via: "session", role, home: "owner", headers });
    const key = await seedKey(server, OWNER, { role, name: role });
    callers.push({ who: role, via: "key", role, home: role, headers: withKey(key.key) });
  }
  callers.push({ who: "non-member", via: "session", role: null, home: "owner", headers: await signIn(OTHER) });
  const otherKey = await seedKey(server, OTHER);
  callers.push({ who: "non-member", via: "key", role: null, home: "admin", headers: withKey(otherKey.key) });

  // Each caller's first request writes its key's or session's last use (once a minute at most: with
  // the clock pinned, never again), and the fixture's delivery is tried once: both before any case.
  for (const c of callers)
    expect((await server.json("/api/v1/forms/list", { headers: c.headers(false) })).status).toBe(200);
  for (let i = 0; (await unsent(isoTime(clock.now()))) > 0; i++) {
    if (i > 3000) throw new Error("the outbox did not settle in 30 s");
    await Bun.sleep(10);
  }
});
afterAll(async () => {
  await server.close();
  own.cleanup();
});

const unsent = async (now: string) =>
  (
    await server.query<{ n: number }>(
      "SELECT count(*) AS n FROM outbox WHERE status IN ('pending', 'sending') AND next_attempt_at <= ?",
      now,
    )
  )[0]!.n;

/** The rows: every route that takes a key, those that state a right and the public ones. */
const rated = () => apiRoutes(routes);

interface Case {
  r: Route;
  c: Caller;
  /** What the table says: null to let it through, else the refusal. */
  refusal: { status: number; code: string } | null;
}

/** Every route with every caller, and what the rights table says each gets (a key is never an owner: no such case). */
function cases(): Case[] {
  return rated().flatMap((r) =>
    callers.map((c) => {
      const role = namesItsTarget(r) ? c.role : c.home;
      // A public route takes any key of the form's team, and no session.
      const least = isPublic(r) ? "viewer" : RIGHTS[rightOf(r)!];
      let refusal: Case["refusal"] = null;
      if (isPublic(r) && c.via === "session") refusal = { status: 401, code: "UNAUTHORIZED" };
      else if (role === null) {
        // What another owner's caller gets: the path's object not found or forbidden, a team named in the body forbidden.
        const status = OTHER_OWNER_STATUS[namedBy(r) ?? ""] ?? 403;
        refusal = { status, code: status === 404 ? "NOT_FOUND" : "FORBIDDEN" };
      } else if (!atLeast(role, least)) refusal = { status: 403, code: "ROLE_TOO_LOW" };
      return { r, c, refusal };
    }),
  );
}

const name = ({ r, c }: Case) => `${label(r)} by the ${c.who}'s ${c.via}`;

async function call(r: Route, c: Caller, target: Record<string, string> = ids) {
  const headers = c.headers(hasBody(r));
  if (hasBody(r)) headers["content-type"] = "application/json";
  const res = await server.request(pathOf(r, target), {
    method: r.method,
    headers,
    body: hasBody(r) ? validBody(r, target) : undefined,
  });
  const text = await res.text();
  const code = res.headers.get("content-type")?.startsWith("application/json")
    ? JSON.parse(text || "null")?.code
    : undefined;
  return { status: res.status, code };
}

/**
 * What changes whatever the request: the rate limiter's counts (PostgreSQL keeps them in a table,
 * shared by the instances), and SQLite's search index, which takes earlier submits in on its own time.
 */
const BOOKKEEPING = new Set([
  "rate_buckets",
  "search_backlog",
  "submission_search",
  "submission_search_data",
  "submission_search_idx",
  "submission_search_docsize",
  "submission_search_config",
]);

/** Every table's rows, in one order: what a refused request must leave as it was. */
async function snapshot(): Promise<Record<string, string[]>> {
  const tables = await server.query<{ name: string }>(
    onPostgres
      ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
      : "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
  );
  const rows: Record<string, string[]> = {};
  for (const { name } of tables.filter((t) => !BOOKKEEPING.has(t.name)))
    rows[name] = (await server.query(`SELECT * FROM ${name}`)).map((row) => JSON.stringify(row)).sort();
  return rows;
}

let members = 0;
/** A new editor of the fixture's team, for a call that changes or ends a membership. */
async function freshMember(): Promise<string> {
  const person = await server.services.owners.ensureOwner(`member${++members}@example.com`);
  await joinTeam(server, team, person.id, "editor");
  return person.id;
}

/**
 * Deleting routes, and those that change a membership: each allowed call gets a fresh object of
 * the kind it changes, made through the services.
 */
const FRESH: Record<string, (c: Caller) => Promise<Record<string, string>>> = {
  "DELETE /api/v1/forms/:formId": async () => ({ formId: (await seedForm(server, OWNER, { name: "Doomed" })).id }),
  "DELETE /api/v1/forms/:formId/submissions/:submissionId": async () => ({
    submissionId: (await server.submit(ownerKey, ids.formId!, { email: "doomed@example.com" })).body.submissionId,
  }),
  // A note of the caller's own: only its author deletes it.
  "DELETE /api/v1/forms/:formId/submissions/:submissionId/notes/:noteId": async (c) => {
    const res = await server.json(`/api/v1/forms/${ids.formId}/submissions/${ids.submissionId}/notes`, {
      method: "POST",
      headers: { ...c.headers(true), "content-type": "application/json" },
      body: JSON.stringify({ text: "Doomed" }),
    });
    expect(res.status).toBe(200);
    return { noteId: res.body.id };
  },
  "DELETE /api/v1/keys/:keyId": async () => ({ keyId: (await seedKey(server, OWNER, { name: "doomed" })).id }),
  // A team of the owner's own: the personal team cannot be deleted.
  "DELETE /api/v1/teams/:teamId": async () => ({
    teamId: (await server.services.teams.createTeam(OPERATOR, { name: "Doomed", owner: OWNER })).id,
  }),
  "DELETE /api/v1/teams/:teamId/members/:ownerId": async () => ({ ownerId: await freshMember() }),
  "PATCH /api/v1/teams/:teamId/members/:ownerId": async () => ({ ownerId: await freshMember() }),
  "DELETE /api/v1/teams/:teamId/invitations/:invitationId": async () => {
    const made = await server.services.invitations.invite(
      OPERATOR,
      team,
      { email: `invited${++members}@example.com`, role: "viewer" },
      { email: false },
    );
    return { invitationId: made.invitation.id };
  },
  "DELETE /api/v1/webhooks/:webhookId": async () => ({
    webhookId: (await server.services.webhooks.addWebhook(OPERATOR, ids.formId!, { url: "http://127.0.0.1:9/doomed" }))
      .id,
  }),
};

test("the fixture holds every role, by session and by key, and a non-member of each kind", () => {
  expect(callers.map((c) => `${c.who} ${c.via}`).sort()).toEqual(
    [
      "owner session",
      ...["admin", "editor", "viewer", "non-member"].flatMap((who) => [`${who} key`, `${who} session`]),
    ].sort(),
  );
  expect(rated().length).toBeGreaterThan(20);
});

describe("every route, by every role and a non-member, with a session and with a key", () => {
  test("refuses a role below the route's right with 403 ROLE_TOO_LOW, and a non-member as another owner's caller, changing nothing", async () => {
    const refused = cases().filter((k) => k.refusal !== null);
    expect(refused.some((k) => k.refusal!.code === "ROLE_TOO_LOW")).toBe(true);
    let before = await snapshot();
    await expectEach(
      refused,
      name,
      (k) => ({ ...k.refusal, changed: [] }),
      async ({ r, c }) => {
        const { status, code } = await call(r, c);
        const after = await snapshot();
        const changed = Object.keys(after).filter((t) => !Bun.deepEquals(after[t], before[t]));
        before = after;
        return { status, code, changed };
      },
    );
  });

  test("lets a role at or above the route's right through (a deleting call on a fresh object of its own)", async () => {
    const allowed = cases().filter((k) => k.refusal === null);
    // A new route that deletes gets its fresh objects here first.
    expect(allowed.filter((k) => k.r.method === "DELETE" && !FRESH[label(k.r)]).map(name)).toEqual([]);
    await expectEach(
      allowed,
      name,
      () => "let through",
      async ({ r, c }) => {
        const target = { ...ids, ...(await FRESH[label(r)]?.(c)) };
        const { status, code } = await call(r, c, target);
        // The one answer besides success that comes after the role check, not from it: a delivery being sent right then.
        const through = (status >= 200 && status < 300) || (label(r).endsWith("/replay") && status === 409);
        return through ? "let through" : { status, code };
      },
    );
  });
});

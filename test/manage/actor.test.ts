import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR, type Actor, type Principal } from "../../src/lib/principal";
import { personalTeamId } from "../../src/lib/rights";
import type { Services } from "../../src/services";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let owner: Awaited<ReturnType<typeof seedOwner>>;
let other: Awaited<ReturnType<typeof seedOwner>>;
let ownKey: Principal;
let otherKey: Principal;

beforeAll(async () => {
  server = await startTestServer();
  owner = await seedOwner(server, "owner@example.com");
  other = await seedOwner(server, "other@example.com");
  // As a route hands them to the services: carrying the right the route states (an admin's, as keys.manage).
  ownKey = { ...(await server.services.keys.authenticate(owner.key))!, right: "keys.manage" };
  otherKey = { ...(await server.services.keys.authenticate(other.key))!, right: "keys.manage" };
});
afterAll(() => server.close());

/** The error code a service call fails with, or "ok". */
const outcome = (call: Promise<unknown>) =>
  call.then(
    () => "ok",
    (e: { code?: string }) => e.code ?? String(e),
  );

describe("the actor, first in every service method", () => {
  // Each: who acts, what it does to the owner's data, and the answer; the operator reaches every owner's.
  const CASES: [string, () => Actor, (s: Services, actor: Actor) => Promise<unknown>, string][] = [
    [
      "the operator lists any form's webhooks",
      () => OPERATOR,
      (s, a) => s.webhooks.listWebhooks(a, owner.formId),
      "ok",
    ],
    [
      "another owner's key is refused the form's webhooks",
      () => otherKey,
      (s, a) => s.webhooks.listWebhooks(a, owner.formId),
      "FORBIDDEN",
    ],
    [
      "a key may not list every form's webhooks, as the operator may",
      () => ownKey,
      (s, a) => s.webhooks.listWebhooks(a, null),
      "INVALID_PARAMETER",
    ],
    [
      "the operator reads any form's submissions",
      () => OPERATOR,
      (s, a) => s.submissions.pageJson(a, owner.formId, { limit: 10 }),
      "ok",
    ],
    [
      "another owner's key is refused them",
      () => otherKey,
      (s, a) => s.submissions.pageJson(a, owner.formId, { limit: 10 }),
      "FORBIDDEN",
    ],
    [
      "the operator must name a new key's owner",
      () => OPERATOR,
      (s, a) => s.keys.createKey(a, { name: "nobody's" }),
      "INVALID_PARAMETER",
    ],
    [
      "another owner's key does not see the owner's key",
      () => otherKey,
      (s, a) => s.keys.revokeKey(a, owner.keyId),
      "NOT_FOUND",
    ],
  ];
  for (const [name, actor, call, expected] of CASES) {
    test(`${name}: ${expected}`, async () => {
      expect(await outcome(call(server.services, actor()))).toBe(expected);
    });
  }

  test("a key's new key is its own owner's, whatever owner it names; the operator's is the named owner's, recorded as the command line's", async () => {
    const own = await server.services.keys.createKey(ownKey, { name: "mine", owner: "other@example.com" });
    const named = await server.services.keys.createKey(OPERATOR, { name: "theirs", owner: "other@example.com" });
    expect([own.owner, named.owner]).toEqual(["owner@example.com", "other@example.com"]);
    const lines = await server.query(
      "SELECT object_id, team_id, owner_id, actor_kind, actor_id FROM audit_events WHERE action = 'key.created' AND object_id IN (?, ?) ORDER BY id",
      own.id,
      named.id,
    );
    expect(lines).toEqual([
      {
        object_id: own.id,
        team_id: personalTeamId(owner.ownerId),
        owner_id: owner.ownerId,
        actor_kind: "key",
        actor_id: owner.keyId,
      },
      // The command line is nobody's: its lines name the team alone.
      { object_id: named.id, team_id: personalTeamId(other.ownerId), owner_id: "", actor_kind: "cli", actor_id: "cli" },
    ]);
    expect((await server.query("SELECT count(*) AS n FROM api_keys WHERE name = ?", "nobody's"))[0].n).toBe(0);
  });
});

import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { useServer } from "../helpers/fixture";
import { cliJson, seedKey } from "../helpers/harness";

const server = useServer({ config: { rateLimit: 100_000 } });
const { send } = server;
const owner = server.seed("owner@example.com");
const other = server.seed("other@example.com");

describe("GET /keys", () => {
  test("lists the owner's keys, oldest first, as keys list --json shows them, never a secret or another owner's key", async () => {
    const res = await send("GET", "/keys", owner.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(cliJson(["keys", "list", "--owner", "owner@example.com"], { db: server.db }));
    expect(res.body.map((k: { id: string }) => k.id)).toEqual([owner.keyId]);
    expect(res.body[0]).toMatchObject({
      owner: "owner@example.com",
      kind: "secret",
      forms: null,
      active: true,
      prefix: owner.key.slice(0, 12),
    });
    expect(JSON.stringify(res.body)).not.toContain(owner.key);
    expect(JSON.stringify(res.body)).not.toContain(other.keyId);
  });
});

describe("POST /keys", () => {
  test("creates a key of the caller's owner, shows its secret in this answer only, and the key works at once", async () => {
    const res = await send("POST", "/keys", owner.key, { name: "deploy" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "createdAt",
      "forms",
      "id",
      "key",
      "kind",
      "name",
      "owner",
      "role",
      "teamId",
    ]);
    expect(res.body).toMatchObject({ name: "deploy", owner: "owner@example.com", kind: "secret", forms: null });
    expect(res.body.key).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
    expect((await server.query("SELECT hash FROM api_keys WHERE id = ?", res.body.id))[0].hash).toBe(
      createHash("sha256").update(res.body.key).digest("hex"),
    );
    expect((await send("GET", `/forms/${owner.formId}`, res.body.key)).status).toBe(200);
    const listed = (await send("GET", "/keys", owner.key)).body;
    expect(listed.find((k: { id: string }) => k.id === res.body.id)).toMatchObject({ name: "deploy", active: true });
    expect(JSON.stringify(listed)).not.toContain(res.body.key);
  });

  test("creates a publishable key bound to the owner's forms; it may submit, and nothing else", async () => {
    const res = await send("POST", "/keys", owner.key, { name: "site", publishable: true, forms: [owner.formId] });
    expect(res.body).toMatchObject({ kind: "publishable", forms: [owner.formId] });
    expect(res.body.key).toMatch(/^fpk_/);
    expect((await send("POST", "/forms/submit", res.body.key, { formId: owner.formId, data: { n: 1 } })).status).toBe(
      200,
    );
    expect((await send("GET", "/keys", res.body.key)).body.code).toBe("KEY_SCOPE");
  });

  test("refuses a bad body with a 400 that says what is wrong, creating nothing", async () => {
    const before = (await server.query("SELECT count(*) AS n FROM api_keys"))[0].n;
    const cases: [unknown, string][] = [
      [{ name: "" }, "name must be 1 to 200 characters"],
      [{ name: "   " }, "key name must be 1 to 200 characters"],
      [{ publishable: "yes" }, "publishable must be true or false"],
      [{ forms: [] }, "forms must be a list of 1 to 100 form ids"],
      [{ forms: [other.formId] }, `this key's team has no form ${other.formId}`],
      [{ forms: ["frm_missing"] }, "has no form frm_missing"],
      [{ owner: "other@example.com" }, "unknown field owner"],
    ];
    for (const [body, message] of cases) {
      const res = await send("POST", "/keys", owner.key, body);
      expect([JSON.stringify(body), res.status, res.body.error]).toEqual([
        JSON.stringify(body),
        400,
        expect.stringContaining(message),
      ]);
    }
    expect((await server.query("SELECT count(*) AS n FROM api_keys"))[0].n).toBe(before);
  });

  test("never names the owner's address in its answer, whatever key asks: a publishable key reads the 400 before its 403", async () => {
    const callers = {
      secret: owner.key,
      publishable: (await seedKey(server, "owner@example.com", { publishable: true })).key,
      bound: (await seedKey(server, "owner@example.com", { forms: [owner.formId] })).key,
    };
    for (const [kind, key] of Object.entries(callers)) {
      for (const forms of [["frm_missing"], [other.formId], [owner.formId, other.formId]]) {
        const res = await send("POST", "/keys", key, { forms });
        expect([kind, forms, res.status, JSON.stringify(res.body).includes("owner@example.com")]).toEqual([
          kind,
          forms,
          400,
          false,
        ]);
      }
    }
  });

  test("refuses a publishable key and a key bound to some forms (403 KEY_SCOPE): a bound key cannot mint itself an unbound one", async () => {
    const pub = (await seedKey(server, "owner@example.com", { publishable: true })).key;
    const bound = (await seedKey(server, "owner@example.com", { forms: [owner.formId] })).key;
    for (const key of [pub, bound]) {
      for (const [method, path, body] of [
        ["POST", "/keys", {}],
        ["GET", "/keys", undefined],
        ["DELETE", `/keys/${owner.keyId}`, undefined],
      ] as const) {
        const res = await send(method, path, key, body);
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 403, "KEY_SCOPE"]);
      }
    }
    expect((await send("GET", `/forms/${owner.formId}`, owner.key)).status).toBe(200);
  });
});

describe("DELETE /keys/{keyId}", () => {
  test("revokes a key made over HTTP: the running server refuses it (401) from the next request on", async () => {
    const made = (await send("POST", "/keys", owner.key, { name: "short-lived" })).body;
    // Used first, so the server has it in its key cache.
    expect((await send("GET", "/forms/list", made.key)).status).toBe(200);
    const res = await send("DELETE", `/keys/${made.id}`, owner.key);
    expect([res.status, res.body.id, res.body.active]).toEqual([200, made.id, false]);
    expect(res.body.revokedAt).toMatch(/Z$/);
    const refused = await send("GET", "/forms/list", made.key);
    expect([refused.status, refused.body.code]).toEqual([401, "UNAUTHORIZED"]);
    // Revoking it again changes nothing.
    expect((await send("DELETE", `/keys/${made.id}`, owner.key)).body).toEqual(res.body);
  });

  test("lets a key revoke itself: that answer is its last", async () => {
    const made = (await send("POST", "/keys", owner.key, { name: "self" })).body;
    const res = await send("DELETE", `/keys/${made.id}`, made.key);
    expect([res.status, res.body.active]).toEqual([200, false]);
    expect((await send("GET", "/keys", made.key)).status).toBe(401);
  });

  test("answers another owner's key like a key that does not exist (404), and leaves it active", async () => {
    const res = await send("DELETE", `/keys/${other.keyId}`, owner.key);
    expect([res.status, res.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await send("DELETE", "/keys/key_missing", owner.key)).status).toBe(404);
    expect((await send("GET", `/forms/${other.formId}`, other.key)).status).toBe(200);
    expect((await send("DELETE", `/keys/${other.keyId}`, "fsk_wrong")).status).toBe(401);
  });
});

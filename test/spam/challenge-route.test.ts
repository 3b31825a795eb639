import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "elysia/type-system";
import { ChallengeSchema } from "../../src/modules/spam/model";
import { useServer } from "../helpers/fixture";

const server = useServer();
const owner = server.seed("route@example.com");
const other = server.seed("someone-else@example.com");
const shape = TypeCompiler.Compile(ChallengeSchema);

const path = (formId: string) => `/api/v1/forms/${formId}/challenge`;

describe("GET /api/v1/forms/{formId}/challenge", () => {
  test("answers the bare ALTCHA challenge for the form, uncached, whatever the form's challenge setting", async () => {
    expect((await server.services.forms.requireForm(owner.formId)).challenge).toBe("none");
    const before = Math.floor(Date.now() / 1000);
    const res = await server.json(path(owner.formId), { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expect([...shape.Errors(res.body)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    expect(res.body.parameters).toMatchObject({
      algorithm: "PBKDF2/SHA-256",
      data: { formId: owner.formId },
      keyLength: 32,
    });
    expect(res.body.parameters.expiresAt).toBeGreaterThanOrEqual(before + 600);
    expect(res.body.parameters.expiresAt).toBeLessThanOrEqual(before + 602);
  });

  test("answers a new challenge every time", async () => {
    const [a, b] = await Promise.all([
      server.json(path(owner.formId), { key: owner.key }),
      server.json(path(owner.formId), { key: owner.key }),
    ]);
    expect(a.body.signature).not.toBe(b.body.signature);
    expect(a.body.parameters.nonce).not.toBe(b.body.parameters.nonce);
  });

  test("answers 401 without a key or with an unknown one, before looking at the form id", async () => {
    for (const key of [undefined, "fsk_not_a_real_key"]) {
      for (const formId of [owner.formId, "x".repeat(201)]) {
        const res = await server.json(path(formId), { key });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe("UNAUTHORIZED");
      }
    }
  });

  test("answers 400 for a form id that cannot be one", async () => {
    const res = await server.json(path("x".repeat(201)), { key: owner.key });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("formId");
  });

  test("answers 404 for an unknown form and 403 for another owner's form", async () => {
    const missing = await server.json(path("frm_does_not_exist"), { key: owner.key });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("FORM_NOT_FOUND");
    const foreign = await server.json(path(other.formId), { key: owner.key });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBeString();
  });

  test("is documented in the OpenAPI document with the challenge's schema", async () => {
    const doc = (await server.json("/api/v1/openapi.json")).body;
    const op = doc.paths["/api/v1/forms/{formId}/challenge"].get;
    expect(op.summary).toBe("Get a proof-of-work challenge");
    expect(
      op.responses["200"].content["application/json"].schema.properties.parameters.properties.keyPrefix,
    ).toBeDefined();
    expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "403", "404", "413", "429", "500", "503"]);
  });
});

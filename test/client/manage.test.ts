import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { useServer } from "../helpers/fixture";
import { runCliAsync } from "../helpers/harness";
import { submitRequest } from "../../src/modules/submissions/request";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed("client@example.com");
let client: FormsvcClient;
const NO_SUBMITTER = {
  userAgent: null,
  acceptLanguage: null,
  referer: null,
  origin: null,
  ip: "127.0.0.1",
  proxyCountry: null,
};

beforeAll(async () => {
  client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: owner.key, fetch: server.fetch });
});

const collect = async (chunks: AsyncIterable<string>) => {
  let text = "";
  let count = 0;
  for await (const chunk of chunks) {
    text += chunk;
    count += 1;
  }
  return { text, count };
};

describe("FormsvcClient's management methods against a running server", () => {
  test("create, update and delete a form", async () => {
    const form = await client.createForm({
      name: "From the client",
      formType: "waitlist",
      usersJoinedSettings: { enabled: true },
      retentionDays: 60,
    });
    expect(form).toMatchObject({
      name: "From the client",
      formType: "waitlist",
      retentionDays: 60,
      usersJoinedSettings: { enabled: true, count: 0 },
    });
    const updated = await client.updateForm(form.id, { retentionDays: null, spamSettings: { challenge: "pow" } });
    expect([updated.retentionDays, updated.spamSettings.challenge, updated.name]).toEqual([
      null,
      "pow",
      "From the client",
    ]);
    expect(await client.deleteForm(form.id)).toEqual({ id: form.id, deleted: true });
    const gone = await client.getForm(form.id).catch((e) => e);
    expect([gone instanceof FormsvcError, gone.status]).toEqual([true, 404]);
    const bad = await client.updateForm(owner.formId, { retentionDays: 0 }).catch((e) => e);
    expect([bad.status, bad.code]).toEqual([400, "INVALID_PARAMETER"]);
  });

  test("list, create and revoke keys; a revoked key's client gets 401", async () => {
    const created = await client.createKey({ name: "rotated" });
    expect(created.key).toMatch(/^fsk_/);
    expect((await client.listKeys()).map((k) => k.id)).toEqual([owner.keyId, created.id]);
    const rotated = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: created.key, fetch: server.fetch });
    expect((await rotated.getForm(owner.formId)).id).toBe(owner.formId);
    expect(await client.revokeKey(created.id)).toMatchObject({ id: created.id, active: false });
    const refused = await rotated.getForm(owner.formId).catch((e) => e);
    expect([refused.status, refused.code]).toEqual([401, "UNAUTHORIZED"]);
  });

  test("move a submission to spam and back, and delete it", async () => {
    const { submissionId } = await client.submit({ formId: owner.formId, data: { email: "sam@example.com" } });
    expect(await client.markSpam(owner.formId, submissionId)).toEqual({
      id: submissionId,
      status: "spam",
      moved: true,
    });
    expect(await client.markNotSpam(owner.formId, submissionId)).toEqual({
      id: submissionId,
      status: "inbox",
      moved: true,
    });
    expect(await client.deleteSubmission(owner.formId, submissionId)).toEqual({ id: submissionId, deleted: true });
    const again = await client.deleteSubmission(owner.formId, submissionId).catch((e) => e);
    expect(again.status).toBe(404);
  });

  test("exportSubmissions yields the export as text chunks: CSV as the command line writes it, or JSON", async () => {
    for (let i = 0; i < 3; i++)
      await client.submit({ formId: owner.formId, data: { email: `e${i}@example.com`, n: i } });
    const csv = await collect(client.exportSubmissions(owner.formId));
    expect(csv.text).toBe((await runCliAsync(["submissions", "export", owner.formId], { db: server.db })).stdout);
    const json = JSON.parse((await collect(client.exportSubmissions(owner.formId, { format: "json" }))).text);
    expect(json.map((s: { data: { n: number } }) => s.data.n)).toEqual([0, 1, 2]);
    const missing = await collect(client.exportSubmissions("frm_missing")).catch((e) => e);
    expect([missing instanceof FormsvcError, missing.status, missing.code]).toEqual([true, 404, "FORM_NOT_FOUND"]);
  });

  test("exportSubmissions stops when its signal is aborted, and says so instead of ending as if complete", async () => {
    await Promise.all(
      Array.from({ length: 2_000 }, (_, i) =>
        server.services.submissions.submit(
          submitRequest({
            actor: OPERATOR,
            body: { formId: owner.formId, data: { i, pad: "z".repeat(300) } },
            submitter: NO_SUBMITTER,
          }),
        ),
      ),
    );
    await server.services.submissions.flush();
    // The plain fetch, so the answer is still arriving when the signal fires (the checked one reads it whole first).
    const streaming = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: owner.key });
    const controller = new AbortController();
    const chunks = streaming.exportSubmissions(owner.formId, { format: "json" }, { signal: controller.signal });
    expect((await chunks.next()).done).toBe(false);
    controller.abort();
    const after = await collect(chunks).catch((e) => e);
    expect(after).toBeInstanceOf(Error);
    expect(after.name).toBe("AbortError");
  });
});

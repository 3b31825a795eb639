import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { seedKey, seedOwner, startTestServer, tempDir, type Owner, type TestServer } from "../helpers/harness";
import { rawPost } from "../helpers/raw-post";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

const B = "----formsvc-shapes";
const JSON_ANSWER = { accept: "application/json" };

/** A multipart part written by hand. */
const part = (headers: string, content = "") => `--${B}\r\n${headers}\r\n\r\n${content}\r\n`;
const closing = `--${B}--\r\n`;

// The worst shapes of a keyless post: the review froze the server for 6-10 s with one of them.
describe("posts of the worst shape a keyless visitor can send", () => {
  const own = tempDir();
  let server: TestServer;
  let owner: Owner;
  let publishable: string;
  const storedCount = async () =>
    (await server.query("SELECT count(*) AS n FROM submissions WHERE form_id = ?", owner.formId))[0].n;

  beforeAll(async () => {
    server = await startTestServer({
      dir: own.dir,
      config: {
        rateLimit: 100_000,
        publicRateLimit: 100_000,
        maxUploadBytes: 1_000_000,
        files: join(own.dir, "files"),
      },
    });
    owner = await seedOwner(server, "shapes@example.com");
    await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES, publicEndpoint: true });
    publishable = (await seedKey(server, "shapes@example.com", { name: "site", publishable: true })).key;
  });
  afterAll(async () => {
    await server.close();
    own.cleanup();
  });

  const dropIn = (body: string, contentType: string) =>
    server.json(`/f/${owner.formId}`, {
      method: "POST",
      headers: { "content-type": contentType, ...JSON_ANSWER },
      body,
    });

  test("one name sent 34,000 times (~100 KB) is a 400 TOO_MANY_FIELDS on /f/ and on the publishable-key submit, nothing stored", async () => {
    const before = await storedCount();
    const body = "a=&".repeat(34_000);
    const viaDropIn = await dropIn(body, "application/x-www-form-urlencoded");
    expect([viaDropIn.status, viaDropIn.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
    const viaKey = await server.json(`/api/v1/forms/submit?apiKey=${publishable}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `formId=${owner.formId}&${body}`,
    });
    expect([viaKey.status, viaKey.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
    expect(await storedCount()).toBe(before);
  });

  test("a name sent 1,000 times is stored as one list of 1,000 values; 1,001 values are refused", async () => {
    const ok = await dropIn("topics[]=x&".repeat(1000), "application/x-www-form-urlencoded");
    expect(ok.status).toBe(200);
    const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", ok.body.submissionId);
    const topics = JSON.parse(row.data).topics;
    expect([topics.length, topics[999]]).toEqual([1000, "x"]);
    const over = await dropIn("topics[]=x&".repeat(1001), "application/x-www-form-urlencoded");
    expect([over.status, over.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
  });

  test("a multipart body of 10,000 empty text parts is a 400 TOO_MANY_FIELDS, nothing stored", async () => {
    const before = await storedCount();
    const body = part('Content-Disposition: form-data; name="a"').repeat(10_000) + closing;
    const res = await dropIn(body, `multipart/form-data; boundary=${B}`);
    expect([res.status, res.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
    expect(await storedCount()).toBe(before);
  });

  test("a JSON submit or a flat JSON drop-in post of 1,001 fields is a 400 TOO_MANY_FIELDS; 1,000 are stored", async () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, "v"]));
    const viaKey = await server.submit(owner.key, owner.formId, fields(1001));
    expect([viaKey.status, viaKey.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
    const viaDropIn = await dropIn(JSON.stringify(fields(1001)), "application/json");
    expect([viaDropIn.status, viaDropIn.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
    expect((await server.submit(owner.key, owner.formId, fields(1000))).status).toBe(200);
  });

  test("empty file parts count against FORMSVC_MAX_UPLOAD_BYTES: the 413 comes while the body is still open", async () => {
    const before = await storedCount();
    const post = await rawPost(server.url, `/f/${owner.formId}`, {
      "Content-Type": `multipart/form-data; boundary=${B}`,
      Accept: "application/json",
    });
    // Empty file parts whose headers are most of the bytes: 1.2 MB of them, and the body is never ended.
    const padded = part(
      `Content-Disposition: form-data; name="f"; filename=""\r\nContent-Type: application/octet-stream\r\nX-Pad: ${"p".repeat(12_000)}`,
    );
    while (post.sent() < 1_200_000 && post.open()) post.write(padded);
    expect(await post.status()).toBe(413);
    expect(post.received()).toContain("PAYLOAD_TOO_LARGE");
    post.destroy();
    expect(await storedCount()).toBe(before);
  });

  test("empty text parts count against FORMSVC_MAX_BODY_BYTES: the 413 comes while the body is still open", async () => {
    const post = await rawPost(server.url, `/api/v1/forms/submit`, {
      "X-API-Key": owner.key,
      "Content-Type": `multipart/form-data; boundary=${B}`,
    });
    post.write(part('Content-Disposition: form-data; name="formId"', owner.formId));
    const padded = part(`Content-Disposition: form-data; name="a"\r\nX-Pad: ${"p".repeat(1000)}`);
    while (post.sent() < 150_000) post.write(padded);
    expect(await post.status()).toBe(413);
    expect(post.received()).toContain("the form's fields are larger than 102400 bytes");
    post.destroy();
  });
});

describe("a confirmation link's button", () => {
  test("posted with a body over FORMSVC_MAX_BODY_BYTES is a 413, read no further than the limit", async () => {
    const server = await startTestServer();
    try {
      const res = await server.request(`/confirm/${"c".repeat(43)}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "x".repeat(200_000),
      });
      expect(res.status).toBe(413);
    } finally {
      await server.close();
    }
  });
});

describe("a drop-in form's id, however it is spelled", () => {
  let server: TestServer;
  let owner: Owner;
  beforeAll(async () => {
    server = await startTestServer({ config: { rateLimit: 100, publicRateLimit: 2 } });
    owner = await seedOwner(server, "spelling@example.com");
    await server.services.forms.updateForm(OPERATOR, owner.formId, { publicEndpoint: true });
  });
  afterAll(() => server.close());

  const post = (path: string) =>
    server.json(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...JSON_ANSWER },
      body: "message=hi",
    });

  test("percent-encoded, is the same form and takes from the same visitor bucket", async () => {
    const encoded = `/f/%${"f".charCodeAt(0).toString(16)}${owner.formId.slice(1)}`;
    const first = await post(`/f/${owner.formId}`);
    expect([first.status, first.headers.get("x-ratelimit-remaining")]).toEqual([200, "1"]);
    const second = await post(encoded);
    expect([second.status, second.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    const third = await post(encoded);
    expect([third.status, third.body.code]).toEqual([429, "RATE_LIMITED"]);
    expect((await server.query("SELECT count(*) AS n FROM submissions WHERE form_id = ?", owner.formId))[0].n).toBe(2);
  });

  test("a path that does not decode is a 404", async () => {
    const res = await post(`/f/%E0%A4%A${owner.formId}`);
    expect(res.status).toBe(404);
  });
});

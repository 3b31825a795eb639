import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:net";
import { seedOwner, startTestServer, tempDir, type Owner, type TestServer } from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

type Part = { headers: string; content: string | Uint8Array };

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5fd8d4f0000000049454e44ae426082",
  "hex",
);
const B = "----formsvc-hostile";

/** A multipart body written by hand: each part's headers and content as given. */
const raw = (parts: Part[]) =>
  Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(`--${B}\r\n${p.headers}\r\n\r\n`),
      Buffer.from(p.content),
      Buffer.from("\r\n"),
    ]),
    Buffer.from(`--${B}--\r\n`),
  ]);

describe("hostile multipart posts", () => {
  const own = tempDir();
  let server: TestServer;
  let owner: Owner;
  const filesDir = () => join(own.dir, "files");
  const stored = () => {
    try {
      return readdirSync(filesDir(), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    } catch {
      return 0;
    }
  };
  beforeAll(async () => {
    // The store in the test's own folder on either engine (on PostgreSQL the default is ./data/files).
    server = await startTestServer({ dir: own.dir, config: { rateLimit: 100_000, files: join(own.dir, "files") } });
    owner = await seedOwner(server, "hostile@example.com");
    await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
  });
  afterAll(async () => {
    await server.close();
    own.cleanup();
  });

  const post = (body: Uint8Array, headers: Record<string, string> = {}) =>
    server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": `multipart/form-data; boundary=${B}`, ...headers },
      body: body as Uint8Array<ArrayBuffer>,
    });

  const formIdPart = (): Part => ({ headers: 'Content-Disposition: form-data; name="formId"', content: owner.formId });

  test("a body of 10,000 parts is answered 400 TOO_MANY_FIELDS, nothing stored", async () => {
    const parts: Part[] = [formIdPart()];
    for (let i = 0; i < 10_000; i++)
      parts.push({ headers: `Content-Disposition: form-data; name="f${i}"`, content: "x" });
    const res = await post(raw(parts));
    expect([res.status, res.body.code]).toEqual([400, "TOO_MANY_FIELDS"]);
    expect(await server.query("SELECT id FROM submissions")).toEqual([]);
  });

  test("fields over FORMSVC_MAX_BODY_BYTES in under 1,000 parts are answered 413, nothing stored", async () => {
    const parts: Part[] = [formIdPart()];
    for (let i = 0; i < 900; i++)
      parts.push({ headers: `Content-Disposition: form-data; name="f${i}"`, content: "x".repeat(200) });
    const res = await post(raw(parts));
    expect([res.status, res.body.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(await server.query("SELECT id FROM submissions")).toEqual([]);
  });

  test("10,000 file parts are refused at the form's maxFiles, nothing left in the store", async () => {
    const parts: Part[] = [formIdPart()];
    for (let i = 0; i < 10_000; i++)
      parts.push({ headers: `Content-Disposition: form-data; name="f"; filename="${i}.png"`, content: PNG });
    const before = stored();
    const res = await post(raw(parts));
    expect([res.status, res.body]).toEqual([400, expect.objectContaining({ code: "TOO_MANY_FILES" })]);
    expect(stored()).toBe(before);
    expect(await server.query("SELECT id FROM files")).toEqual([]);
  });

  const cases: {
    why: string;
    parts: () => { headers: string; content: string | Uint8Array }[];
    status: number;
    name?: string;
  }[] = [
    {
      why: "a part without a name",
      parts: () => [formIdPart(), { headers: "Content-Disposition: form-data", content: "x" }],
      status: 400,
    },
    {
      why: "a filename of ../../etc/passwd, kept as a name and never a path",
      parts: () => [
        formIdPart(),
        { headers: 'Content-Disposition: form-data; name="f"; filename="../../etc/passwd"', content: "root:x:0:0\n" },
      ],
      status: 200,
      name: "passwd",
    },
    {
      why: "a filename of 10,000 characters, cut to 255",
      parts: () => [
        formIdPart(),
        { headers: `Content-Disposition: form-data; name="f"; filename="${"a".repeat(10_000)}.txt"`, content: "hi\n" },
      ],
      status: 200,
      name: "a".repeat(255),
    },
    {
      why: "a body cut short inside a file",
      parts: () => [
        formIdPart(),
        { headers: 'Content-Disposition: form-data; name="f"; filename="x.png"', content: PNG },
      ],
      status: 400,
    },
  ];
  for (const c of cases) {
    test(`answers ${c.why} with ${c.status}`, async () => {
      let body = raw(c.parts());
      if (c.why.startsWith("a body cut short")) body = body.subarray(0, body.length - 60);
      const res = await post(body);
      expect(res.status).toBe(c.status);
      if (c.name) {
        const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", res.body.submissionId);
        expect(JSON.parse(row.data).f.name).toBe(c.name);
        const [file] = await server.query("SELECT key FROM files WHERE submission_id = ?", res.body.submissionId);
        expect(file.key).toMatch(/^tm_[0-9a-f]+\/fil_[0-9a-f]+$/);
      }
    });
  }

  test("a Content-Length that claims more than is sent leaves nothing behind once the client goes", async () => {
    const body = raw([
      formIdPart(),
      { headers: 'Content-Disposition: form-data; name="f"; filename="x.png"', content: PNG },
    ]);
    const url = new URL(server.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /api/v1/forms/submit HTTP/1.1\r\nHost: ${url.host}\r\nX-API-Key: ${owner.key}\r\nContent-Type: multipart/form-data; boundary=${B}\r\nContent-Length: ${body.length + 5000}\r\n\r\n`,
        );
        socket.write(body);
        setTimeout(() => socket.destroy(), 300);
      });
      socket.on("close", () => resolve());
      socket.on("error", () => resolve());
    });
    await Bun.sleep(300);
    expect(await server.query("SELECT id FROM files WHERE state = 'pending'")).toEqual([]);
  });
});

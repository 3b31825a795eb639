import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startReceiver, until, type Receiver } from "../helpers/receiver";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { seedOwner, startTestServer, tempDir, type Owner, type TestServer } from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5fd8d4f0000000049454e44ae426082",
  "hex",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const LINK = /https?:\/\/[^\s"<>]+\/api\/v1\/files\/[^\s"<>]+/g;

/** The link with one character of its signature changed. */
const tampered = (url: string) => url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === "A" ? "B" : "A"}`);

function upload(formId: string): FormData {
  const form = new FormData();
  form.append("formId", formId);
  form.append("name", "Ada");
  form.append("cv", new Blob([PDF]), "cv.pdf");
  form.append("photos", new Blob([PNG]), "1.png");
  form.append("photos", new Blob([PNG]), "2.png");
  return form;
}

describe("signed file links in owner notifications and webhook payloads (FORMSVC_PUBLIC_URL set)", () => {
  const own = tempDir();
  let smtp: SmtpSink;
  let rx: Receiver;
  let server: TestServer;
  let owner: Owner;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    rx = startReceiver();
    // A known port, so FORMSVC_PUBLIC_URL can name the server itself and its links be fetched.
    const port = await freePort();
    server = await startTestServer({
      dir: own.dir,
      config: {
        port,
        publicUrl: `http://127.0.0.1:${port}`,
        smtpUrl: smtp.url,
        webhookAllowPrivate: true,
        rateLimit: 100_000,
        files: join(own.dir, "files"),
      },
    });
    owner = await seedOwner(server, "links@example.com", { emailEnabled: true, developerNotifications: true });
    await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
    const hook = await server.send("POST", `/forms/${owner.formId}/webhooks`, owner.key, { url: rx.url });
    expect(hook.status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    rx.close();
    await smtp.close();
    own.cleanup();
  });

  /** Fetches a link without a key: its status and bytes. */
  const fetchLink = async (url: string) => {
    const res = await server.request(url.slice(new URL(url).origin.length));
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  test("the email names each file with its type and size, and its link downloads the bytes without a key; a changed link is 403", async () => {
    const res = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      body: upload(owner.formId),
    });
    expect(res.status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    const text = mail!.text ?? "";
    expect(text).toMatch(/Cv: cv\.pdf \(application\/pdf, \d+ B\) http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\/fil_/);
    expect(text).toMatch(/Photos: 1\.png \(image\/png, \d+ B\) http\S+\n2\.png \(image\/png, \d+ B\) http\S+/);
    const links = text.match(LINK)!;
    expect(links.length).toBe(3);
    // The HTML part links the same URLs under the files' names.
    expect(mail!.html).toContain(`<a href="${links[0]!.replaceAll("&", "&amp;")}">cv.pdf</a>`);
    const cases = [
      { url: links[0]!, bytes: PDF },
      { url: links[1]!, bytes: PNG },
    ];
    for (const c of cases) {
      const got = await fetchLink(c.url);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(c.bytes)).toBe(true);
      expect((await fetchLink(tampered(c.url))).status).toBe(403);
    }
  });

  test("the webhook payload carries a url beside each file entry, which downloads the bytes; a changed one is 403", async () => {
    const [delivery] = await rx.waitFor(1);
    const payload = JSON.parse(delivery!.body);
    const { cv, photos } = payload.data.data;
    expect(cv).toEqual({
      file: expect.stringMatching(/^fil_/),
      name: "cv.pdf",
      type: "application/pdf",
      size: PDF.byteLength,
      sha256: expect.any(String),
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\/fil_\w+\?expires=\d+&signature=/),
    });
    expect(photos.map((p: { name: string; url: string }) => [p.name, typeof p.url])).toEqual([
      ["1.png", "string"],
      ["2.png", "string"],
    ]);
    for (const [url, bytes] of [
      [cv.url, PDF],
      [photos[1].url, PNG],
    ] as const) {
      const got = await fetchLink(url);
      expect([got.status, got.bytes.equals(bytes)]).toEqual([200, true]);
      expect((await fetchLink(tampered(url))).status).toBe(403);
    }
  });

  test("a look-alike file entry sent as JSON gets a link that does not open another submission's file", async () => {
    const [first] = await rx.waitFor(1);
    const real = JSON.parse(first!.body).data.data.cv;
    const { url: _url, ...entry } = real;
    const res = await server.submit(owner.key, owner.formId, { stolen: entry });
    expect(res.status).toBe(200);
    const [, second] = await rx.waitFor(2);
    const stolen = JSON.parse(second!.body).data.data.stolen;
    expect(stolen.url).toMatch(/^http/);
    expect((await fetchLink(stolen.url)).status).toBe(403);
  });

  test("a notification template prints a file as its name and link, and a section reads its members", async () => {
    await server.services.forms.updateForm(OPERATOR, owner.formId, {
      notificationTemplate: { subject: "CV", text: "CV: {{cv}}\n{{#photos}}[{{name}} {{size}} {{url}}]{{/photos}}" },
    });
    const res = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      body: upload(owner.formId),
    });
    expect(res.status).toBe(200);
    const mails = await until(
      () => smtp.messages,
      (all) => all.some((m) => m.subject === "CV"),
    );
    const mail = mails.find((m) => m.subject === "CV")!;
    expect(mail.text).toMatch(
      /^CV: cv\.pdf http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\/fil_\S+\n\[1\.png \d+ B http\S+\]\[2\.png/,
    );
    const link = mail.text!.match(LINK)![0]!;
    const got = await fetchLink(link);
    expect([got.status, got.bytes.equals(PDF)]).toEqual([200, true]);
  });
});

describe("file links without FORMSVC_PUBLIC_URL", () => {
  const own = tempDir();
  let smtp: SmtpSink;
  let rx: Receiver;
  let server: TestServer;
  let owner: Owner;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    rx = startReceiver();
    server = await startTestServer({
      dir: own.dir,
      config: { smtpUrl: smtp.url, webhookAllowPrivate: true, rateLimit: 100_000, files: join(own.dir, "files") },
    });
    owner = await seedOwner(server, "nolinks@example.com", { emailEnabled: true, developerNotifications: true });
    await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
    await server.send("POST", `/forms/${owner.formId}/webhooks`, owner.key, { url: rx.url });
  });
  afterAll(async () => {
    await server.close();
    rx.close();
    await smtp.close();
    own.cleanup();
  });

  test("the email names the file and says why it has no link; the webhook's url is the path on the server, which works", async () => {
    const res = await server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      body: upload(owner.formId),
    });
    expect(res.status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.text).toContain(
      `Cv: cv.pdf (application/pdf, ${PDF.byteLength} B) [no link: FORMSVC_PUBLIC_URL is not set`,
    );
    expect(mail!.text).not.toContain("/api/v1/files/");
    const [delivery] = await rx.waitFor(1);
    const { cv } = JSON.parse(delivery!.body).data.data;
    expect(cv.url).toMatch(/^\/api\/v1\/files\/fil_\w+\?expires=\d+&signature=/);
    const download = await server.request(cv.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";
import { MAX_ATTACHED_BYTES } from "../../src/modules/notifications/settings";
import { useServer } from "../helpers/fixture";
import { runCliAsync, seedForm, seedOwner, startTestServer, tempDir, type TestServer } from "../helpers/harness";
import { startS3, type S3Server } from "../helpers/s3";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { pdfText } from "../helpers/pdf-text";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5fd8d4f0000000049454e44ae426082",
  "hex",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");

const server = useServer({ smtp: true, config: { rateLimit: 1_000_000 } });
const owner = server.seed("attach@example.com", {
  name: "Anmeldung",
  emailEnabled: true,
  developerNotifications: true,
  fields: [
    { name: "name", type: "text", label: "お名前" },
    { name: "cv", type: "file", label: "Lebenslauf" },
    { name: "photos", type: "file", label: "Fotos" },
  ],
  allowExtraFields: true,
});

beforeAll(async () => {
  await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
});

const settings = (emailSettings: Record<string, unknown>) =>
  server.send("PATCH", `/forms/${owner.formId}`, owner.key, { emailSettings });

async function upload(): Promise<string> {
  const body = new FormData();
  body.append("formId", owner.formId);
  // Sent out of the form's order: the files go in the form's (cv, then the photos in turn).
  body.append("photos", new Blob([PNG]), "1.png");
  body.append("photos", new Blob([PNG]), "2.png");
  body.append("cv", new Blob([PDF]), "cv.pdf");
  body.append("name", "山田 Zoë Ελένη Ольга");
  const res = await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body });
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
}

describe("emailSettings.attachPdf and attachFilesUpTo", () => {
  test("default off: Get Form shows them; the notification carries nothing", async () => {
    const form = (await server.send("GET", `/forms/${owner.formId}`, owner.key)).body;
    expect(form.emailSettings).toMatchObject({ attachPdf: false, attachFilesUpTo: 0 });
    const before = server.smtp.messages.length;
    await upload();
    const mail = (await server.smtp.waitFor(before + 1))[before]!;
    expect(mail.attachments).toEqual([]);
    expect(mail.text).not.toContain("Attached:");
  });

  test("bad values are a 400 naming the setting, and change nothing", async () => {
    for (const bad of [
      { attachPdf: "yes" },
      { attachFilesUpTo: -1 },
      { attachFilesUpTo: MAX_ATTACHED_BYTES + 1 },
      { attachFilesUpTo: 1.5 },
      { attachFilesUpTo: "1000" },
    ]) {
      const res = await settings(bad);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(`emailSettings.${Object.keys(bad)[0]}`);
    }
    const form = (await server.send("GET", `/forms/${owner.formId}`, owner.key)).body;
    expect(form.emailSettings).toMatchObject({ attachPdf: false, attachFilesUpTo: 0 });
  });

  test("the PDF and whole files up to the total, in the form's order, reach the SMTP server; the rest are named as not attached", async () => {
    // cv.pdf (75 B) and 1.png (70 B) fit in 150 bytes; 2.png would pass it.
    const res = await settings({ attachPdf: true, attachFilesUpTo: 150 });
    expect(res.status).toBe(200);
    expect(res.body.emailSettings).toMatchObject({ attachPdf: true, attachFilesUpTo: 150 });
    const before = server.smtp.messages.length;
    const id = await upload();
    const mail = (await server.smtp.waitFor(before + 1))[before]!;
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [`Anmeldung ${id}.pdf`, "application/pdf"],
      ["cv.pdf", "application/pdf"],
      ["1.png", "image/png"],
    ]);
    expect(Buffer.compare(mail.attachments[1]!.content, PDF)).toBe(0);
    expect(Buffer.compare(mail.attachments[2]!.content, PNG)).toBe(0);
    expect(mail.text).toContain(`Attached: Anmeldung ${id}.pdf, cv.pdf, 1.png.`);
    expect(mail.text).toContain(
      "Not attached, past the 150 B this form attaches (each is listed above): 2.png (70 B).",
    );
    const pdf = await pdfText(new Uint8Array(mail.attachments[0]!.content));
    expect([pdf.notdef, pdf.blank]).toEqual([0, 0]);
    const lines = pdf.text.split("\n");
    expect(lines[0]).toBe("Anmeldung");
    expect(lines).toContain(`Submission ${id}`);
    expect(lines[lines.indexOf("お名前") + 1]).toBe("山田 Zoë Ελένη Ольга");
    expect(lines.slice(lines.indexOf("Fotos") + 1, lines.indexOf("Fotos") + 3)).toEqual([
      "1.png (image/png, 70 B; not in this PDF)",
      "2.png (image/png, 70 B; not in this PDF)",
    ]);
  });

  test("a submission deleted before its notification goes out sends nothing of it", async () => {
    const before = server.smtp.messages.length;
    server.smtp.refuse = true;
    const id = await upload();
    // Refused once (the row waits to be retried), then deleted.
    for (let i = 0; i < 500; i++) {
      const [row] = await server.query("SELECT attempts FROM outbox WHERE submission_id = ?", id);
      if (row && row.attempts > 0) break;
      await Bun.sleep(20);
    }
    expect((await server.send("DELETE", `/forms/${owner.formId}/submissions/${id}`, owner.key)).status).toBe(200);
    server.smtp.refuse = false;
    const next = await upload();
    const mails = await server.smtp.waitFor(before + 1);
    await Bun.sleep(200);
    expect(mails.length).toBe(before + 1);
    expect(mails[before]!.text).toContain(next);
    expect(mails.some((m) => m.text?.includes(id))).toBe(false);
  });
});

describe("forms update --attach-pdf / --attach-files-up-to", () => {
  test("set both, and refuse a total past 25 MiB naming the setting, changing nothing", async () => {
    const form = await seedForm(server, "cli-attach@example.com", { name: "By the command line" });
    const set = await runCliAsync(
      ["forms", "update", form.id, "--attach-pdf", "--attach-files-up-to", "1048576", "--json"],
      { db: server.db },
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).emailSettings).toMatchObject({ attachPdf: true, attachFilesUpTo: 1048576 });
    const bad = await runCliAsync(
      ["forms", "update", form.id, "--attach-files-up-to", String(MAX_ATTACHED_BYTES + 1)],
      {
        db: server.db,
      },
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("emailSettings.attachFilesUpTo");
    const off = await runCliAsync(["forms", "update", form.id, "--no-attach-pdf", "--json"], { db: server.db });
    expect(JSON.parse(off.stdout).emailSettings).toMatchObject({ attachPdf: false, attachFilesUpTo: 1048576 });
  });
});

describe("files kept in an S3 bucket", () => {
  const own = tempDir();
  let s3: S3Server;
  let smtp: SmtpSink;
  let s: TestServer;
  beforeAll(async () => {
    [s3, smtp] = await Promise.all([startS3(), startSmtpSink()]);
    s = await startTestServer({
      dir: own.dir,
      config: { smtpUrl: smtp.url, rateLimit: 100_000, files: `s3://${s3.bucket}/uploads`, ...s3.settings },
    });
  });
  afterAll(async () => {
    await s.close();
    await smtp.close();
    await s3.stop();
    own.cleanup();
  });

  test("are streamed from the bucket into the message, byte for byte", async () => {
    const o = await seedOwner(s, "s3-attach@example.com", { emailEnabled: true, developerNotifications: true });
    await s.services.forms.updateForm(OPERATOR, o.formId, { files: DEFAULT_FILES, attachFilesUpTo: 4 * 1024 * 1024 });
    // Larger than any one chunk of the store's stream.
    const notes = Buffer.from("all work and no play\n".repeat(100_000));
    const body = new FormData();
    body.append("formId", o.formId);
    body.append("cv", new Blob([PDF]), "cv.pdf");
    body.append("notes", new Blob([notes]), "notes.txt");
    expect((await s.json("/api/v1/forms/submit", { method: "POST", key: o.key, body })).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.attachments.map((a) => a.filename)).toEqual(["cv.pdf", "notes.txt"]);
    expect(Buffer.compare(mail!.attachments[0]!.content, PDF)).toBe(0);
    expect(Buffer.compare(mail!.attachments[1]!.content, notes)).toBe(0);
  });
});

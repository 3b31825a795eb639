import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";
import { PDF_LIMITS } from "../../src/lib/pdf/document";
import { fontFor } from "../../src/lib/pdf/fonts";
import { useServer } from "../helpers/fixture";
import { join } from "node:path";
import { FormsvcClient, FormsvcError } from "../../src/client";
import { runCliAsync, seedKey, tempDir } from "../helpers/harness";
import { pdfText } from "../helpers/pdf-text";

const server = useServer({ config: { rateLimit: 1_000_000 } });
const owner = server.seed("pdf-owner@example.com", {
  name: "Bewerbung für Zürich",
  fields: [
    { name: "nom", type: "text", label: "Prénom et nom" },
    { name: "city", type: "text", label: "Город" },
    { name: "note", type: "textarea", label: "Σημείωση" },
    { name: "furigana", type: "text", label: "お名前（ふりがな）" },
    { name: "cv", type: "file", label: "CV" },
  ],
  allowExtraFields: true,
});
const other = server.seed("pdf-other@example.com");
let viewerKey: string;

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5fd8d4f0000000049454e44ae426082",
  "hex",
);
const pdfPath = (formId: string, id: string) => `/api/v1/forms/${formId}/submissions/${id}/pdf`;
const getPdf = (id: string, key = owner.key, formId = owner.formId) => server.request(pdfPath(formId, id), { key });

beforeAll(async () => {
  viewerKey = (await seedKey(server, owner.ownerEmail, { role: "viewer", name: "viewer" })).key;
  await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
  // The reader's zone: a key's is its maker's (PATCH /auth/me sets it; test/email/notifications.test.ts goes that way).
  await server.exec("UPDATE owners SET time_zone = ? WHERE id = ?", "Asia/Tokyo", owner.ownerId);
});

async function submitMultipart(fields: Record<string, string>, file?: { name: string; bytes: Uint8Array }) {
  const body = new FormData();
  body.append("formId", owner.formId);
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  if (file) body.append("cv", new Blob([Buffer.from(file.bytes)]), file.name);
  const res = await server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body });
  expect(res.status).toBe(200);
  return res.body.submissionId as string;
}

describe("GET /forms/{formId}/submissions/{submissionId}/pdf", () => {
  test("holds the form's name, the time in the reader's zone, the id, and each label and value in the form's order, in Latin, Cyrillic, Greek and Japanese, each character drawn by an embedded glyph", async () => {
    const id = await submitMultipart(
      {
        extra: "not in the form's fields",
        note: "Καλημέρα κόσμε\nδεύτερη γραμμή",
        city: "Санкт-Петербург",
        nom: "Zoë Çelik-Ångström",
        furigana: "やまだ たろう（山田太郎）",
      },
      { name: "lebenslauf.png", bytes: PNG },
    );
    const res = await getPdf(id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="Bewerbung f_r Z_rich ${id}.pdf"; filename*=UTF-8''Bewerbung%20f%C3%BCr%20Z%C3%BCrich%20${id}.pdf`,
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
    const pdf = await pdfText(bytes);
    expect(pdf.notdef).toBe(0);
    expect(pdf.blank).toBe(0);
    const lines = pdf.text.split("\n");
    expect(lines[0]).toBe("Bewerbung für Zürich");
    expect(lines[1]).toMatch(/^Received .* GMT\+9 \(Asia\/Tokyo\)$/);
    expect(lines[2]).toBe(`Submission ${id}`);
    // The form's order, then the field it does not list; files listed, not embedded.
    const labels = ["Prénom et nom", "Город", "Σημείωση", "お名前（ふりがな）", "CV", "Extra"];
    expect(labels.map((l) => lines.indexOf(l))).toEqual([...labels.map((l) => lines.indexOf(l))].sort((a, b) => a - b));
    expect(lines[lines.indexOf("Prénom et nom") + 1]).toBe("Zoë Çelik-Ångström");
    expect(lines[lines.indexOf("Город") + 1]).toBe("Санкт-Петербург");
    expect(lines.slice(lines.indexOf("Σημείωση") + 1, lines.indexOf("Σημείωση") + 3)).toEqual([
      "Καλημέρα κόσμε",
      "δεύτερη γραμμή",
    ]);
    expect(lines[lines.indexOf("お名前（ふりがな）") + 1]).toBe("やまだ たろう（山田太郎）");
    expect(lines[lines.indexOf("CV") + 1]).toBe("lebenslauf.png (image/png, 70 B; not in this PDF)");
    expect(lines[lines.indexOf("Extra") + 1]).toBe("not in the form's fields");
    expect(pdf.text).not.toContain("\uFFFD");
  });

  test("a character no font has shows as U+FFFD and the PDF says so; a long value wraps at spaces, and one past the limit is cut, saying how much", async () => {
    const long = "lorem ipsum ".repeat(200);
    const id = (
      await server.submit(owner.key, owner.formId, {
        note: "שלום مرحبا",
        nom: long,
        extra: "x".repeat(PDF_LIMITS.valueChars + 1234),
      })
    ).body.submissionId as string;
    const pdf = await pdfText(new Uint8Array(await (await getPdf(id)).arrayBuffer()));
    expect(pdf.notdef).toBe(0);
    expect(pdf.text).toContain("\uFFFD\uFFFD\uFFFD\uFFFD \uFFFD\uFFFD\uFFFD\uFFFD\uFFFD");
    expect(pdf.text).toContain("Characters shown as \uFFFD have no font in this PDF");
    const wrapped = pdf.text.split("\n").filter((l) => l.startsWith("lorem"));
    expect(wrapped.length).toBeGreaterThan(10);
    expect(wrapped.join("")).toBe(long);
    for (const l of wrapped.slice(0, -1)) expect(l.endsWith("ipsum ") || l.endsWith("lorem ")).toBe(true);
    expect(pdf.text).toContain("… [1,234 more characters are not in this PDF]");
  });

  test("past the different Japanese characters a PDF draws, the rest show as U+FFFD, and the PDF says so; every other character is still drawn", async () => {
    let many = "";
    for (let cp = 0x4e00, n = 0; n < PDF_LIMITS.distinctChars + 200; cp++)
      if (await fontFor(cp)) ((many += String.fromCodePoint(cp)), n++);
    const id = (await server.submit(owner.key, owner.formId, { furigana: many })).body.submissionId as string;
    const pdf = await pdfText(new Uint8Array(await (await getPdf(id)).arrayBuffer()));
    expect([pdf.notdef, pdf.blank]).toEqual([0, 0]);
    const drawn = new Set([...pdf.text].filter((c) => c.codePointAt(0)! >= 0x4e00 && c.codePointAt(0)! < 0xa000));
    expect(drawn.size).toBeGreaterThan(PDF_LIMITS.distinctChars - 100);
    expect(drawn.size).toBeLessThanOrEqual(PDF_LIMITS.distinctChars);
    expect(pdf.text).toContain("\uFFFD");
    expect(pdf.text).toContain(`Submission ${id}\n`);
    expect(pdf.text).toContain("page 2 of 2");
    expect(pdf.text.replace(/ ?\n/g, " ")).toContain("or come past the 3,000 different Japanese characters it draws");
  });

  test("a submission that would run past the page limit stops there and says so", async () => {
    const id = (
      await server.submit(
        owner.key,
        owner.formId,
        Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, "line\n".repeat(60)])),
      )
    ).body.submissionId as string;
    const pdf = await pdfText(new Uint8Array(await (await getPdf(id)).arrayBuffer()));
    expect(pdf.pages).toBe(PDF_LIMITS.pages);
    expect(pdf.text).toContain(`page ${PDF_LIMITS.pages} of ${PDF_LIMITS.pages} · cut at ${PDF_LIMITS.pages} pages`);
  });

  test("a viewer reads it; another owner's key gets what it gets for the submission; a submission of another form is a 404", async () => {
    const id = (await server.submit(owner.key, owner.formId, { nom: "Ada" })).body.submissionId as string;
    expect((await getPdf(id, viewerKey)).status).toBe(200);
    const read = await server.send("GET", `/forms/${owner.formId}/submissions/${id}`, other.key);
    const res = await server.json(pdfPath(owner.formId, id), { key: other.key });
    expect(res.status).toBe(read.status);
    expect(res.body.code).toBe(read.body.code);
    expect([403, 404]).toContain(res.status);
    const elsewhere = await server.json(pdfPath(other.formId, id), { key: other.key });
    expect(elsewhere.status).toBe(404);
    expect((await server.json(pdfPath(owner.formId, "sub_nope"), { key: owner.key })).status).toBe(404);
  });
});

describe("the client library and the command line", () => {
  test("FormsvcClient.submissionPdf gives the PDF as a Blob; `formsvc submissions pdf ID --out FILE` writes the same document", async () => {
    const id = (await server.submit(owner.key, owner.formId, { nom: "Ada Lovelace" })).body.submissionId as string;
    const client = new FormsvcClient({ baseUrl: `${server.url}/api/v1`, apiKey: viewerKey, fetch: server.fetch });
    const blob = await client.submissionPdf(owner.formId, id);
    expect(blob.type).toBe("application/pdf");
    const fromApi = await pdfText(new Uint8Array(await blob.arrayBuffer()));
    expect(fromApi.text).toContain("Prénom et nom\nAda Lovelace\n");
    const err = await client.submissionPdf(owner.formId, "sub_nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormsvcError);
    expect((err as FormsvcError).status).toBe(404);

    const dir = tempDir();
    try {
      const out = join(dir.dir, "one.pdf");
      const cli = await runCliAsync(["submissions", "pdf", id, "--out", out], { db: server.db });
      expect(cli.code).toBe(0);
      const fromCli = await pdfText(await Bun.file(out).bytes());
      // The operator reads it in the form creator's zone, which is the key's maker's here.
      expect(fromCli.text).toBe(fromApi.text);
      const missing = await runCliAsync(["submissions", "pdf", "sub_nope", "--out", out], { db: server.db });
      expect(missing.code).not.toBe(0);
    } finally {
      dir.cleanup();
    }
  });
});

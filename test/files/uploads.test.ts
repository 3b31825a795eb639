import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { startS3, type S3Server } from "../helpers/s3";
import {
  cliJsonAsync,
  runCliAsync,
  seedOwner,
  startTestServer,
  tempDir,
  type Owner,
  type TestServer,
} from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

// A 1×1 PNG: what a browser uploads as a photo, whatever its name says.
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5fd8d4f0000000049454e44ae426082",
  "hex",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
const EXE = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(200, 0x90)]);

/** Every file under a folder, as paths relative to it. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
  } catch {
    return [];
  }
}

interface Store {
  name: string;
  /** The config that points the server at it. */
  config(): Record<string, unknown>;
  /** What is stored there now (object keys or file paths). */
  objects(): string[];
}

const s3: { server?: S3Server } = {};
const folder = tempDir();

const STORES: Store[] = [
  {
    name: "a folder",
    config: () => ({ files: join(folder.dir, "files") }),
    objects: () => filesUnder(join(folder.dir, "files")),
  },
  {
    name: "an S3 bucket (s3rver)",
    config: () => ({ files: `s3://${s3.server!.bucket}/uploads`, ...s3.server!.settings }),
    // s3rver keeps each object as a folder of its own files: count the objects' data files.
    objects: () =>
      filesUnder(join(s3.server!.directory, s3.server!.bucket)).filter((p) => p.endsWith("._S3rver_object")),
  },
];

beforeAll(async () => {
  s3.server = await startS3();
});
afterAll(async () => {
  await s3.server?.stop();
  folder.cleanup();
});

/** A multipart body from a list of fields: [name, text] or [name, bytes, filename]. */
function multipart(parts: ([string, string] | [string, Uint8Array, string])[]): FormData {
  const form = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, new Blob([value as Uint8Array<ArrayBuffer>]), filename);
  }
  return form;
}

for (const store of STORES) {
  describe(`uploads to ${store.name}`, () => {
    let server: TestServer;
    let owner: Owner;
    beforeAll(async () => {
      server = await startTestServer({ config: { rateLimit: 100_000, publicRateLimit: 100_000, ...store.config() } });
      owner = await seedOwner(server, "files@example.com", { formType: "application" });
      await server.services.forms.updateForm(OPERATOR, owner.formId, {
        files: { ...DEFAULT_FILES, maxFiles: 2, maxFileBytes: 1000, maxTotalBytes: 1500 },
      });
    });
    afterAll(() => server.close());

    const post = (form: FormData, key = owner.key) =>
      server.json("/api/v1/forms/submit", { method: "POST", key, body: form });

    test("stores a file with its name, sniffed type, size and sha256, and the owner downloads the same bytes with safe headers", async () => {
      const before = store.objects().length;
      const res = await post(
        multipart([
          ["formId", owner.formId],
          ["name", "Ada"],
          ["cv", PDF, "Lebenslauf Ådа.pdf"],
        ]),
      );
      expect(res.status).toBe(200);
      const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", res.body.submissionId);
      const data = JSON.parse(row.data);
      expect(data.cv).toEqual({
        file: expect.stringMatching(/^fil_/),
        name: "Lebenslauf Ådа.pdf",
        type: "application/pdf",
        size: PDF.byteLength,
        sha256: new Bun.CryptoHasher("sha256").update(PDF).digest("hex"),
      });
      expect(store.objects().length).toBe(before + 1);
      const download = await server.request(
        `/api/v1/forms/${owner.formId}/submissions/${res.body.submissionId}/files/${data.cv.file}`,
        { key: owner.key },
      );
      expect(download.status).toBe(200);
      expect(download.headers.get("content-type")).toBe("application/pdf");
      expect(download.headers.get("content-disposition")).toBe(
        `attachment; filename="Lebenslauf _d_.pdf"; filename*=UTF-8''Lebenslauf%20%C3%85d%D0%B0.pdf`,
      );
      expect(download.headers.get("x-content-type-options")).toBe("nosniff");
      expect(download.headers.get("content-security-policy")).toBe("sandbox");
      expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    });

    test("judges a file by its bytes: a PNG named .pdf is stored as image/png", async () => {
      const res = await post(
        multipart([
          ["formId", owner.formId],
          ["cv", PNG, "cv.pdf"],
        ]),
      );
      expect(res.status).toBe(200);
      const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", res.body.submissionId);
      expect(JSON.parse(row.data).cv).toMatchObject({ name: "cv.pdf", type: "image/png" });
    });

    const refusals: {
      why: string;
      parts: () => ([string, string] | [string, Uint8Array, string])[];
      status: number;
      code: string;
      field?: string;
    }[] = [
      {
        why: "a type the form does not take",
        parts: () => [
          ["formId", owner.formId],
          ["tool", EXE, "tool.pdf"],
        ],
        status: 400,
        code: "FILE_TYPE_NOT_ALLOWED",
        field: "tool",
      },
      {
        why: "a file over maxFileBytes",
        parts: () => [
          ["formId", owner.formId],
          ["big", Buffer.alloc(1001, 65), "big.txt"],
        ],
        status: 413,
        code: "FILES_TOO_BIG",
        field: "big",
      },
      {
        why: "files over maxTotalBytes together",
        parts: () => [
          ["formId", owner.formId],
          ["a", Buffer.alloc(800, 65), "a.txt"],
          ["b", Buffer.alloc(800, 66), "b.txt"],
        ],
        status: 413,
        code: "FILES_TOO_BIG",
        field: "b",
      },
      {
        why: "more files than maxFiles",
        parts: () => [
          ["formId", owner.formId],
          ["a", PNG, "a.png"],
          ["b", PNG, "b.png"],
          ["c", PNG, "c.png"],
        ],
        status: 400,
        code: "TOO_MANY_FILES",
        field: "c",
      },
      {
        why: "a file sent before formId (the reader cannot know the form yet: the pipeline check refuses it)",
        parts: () => [
          ["tool", EXE, "tool.bin"],
          ["formId", owner.formId],
        ],
        status: 400,
        code: "FILE_TYPE_NOT_ALLOWED",
        field: "tool",
      },
      {
        why: "a file for a form that does not exist",
        parts: () => [
          ["formId", "frm_missing"],
          ["a", PNG, "a.png"],
        ],
        status: 404,
        code: "FORM_NOT_FOUND",
      },
    ];
    for (const r of refusals) {
      test(`refuses ${r.why}, naming the field, and leaves nothing behind`, async () => {
        const before = store.objects().length;
        const rows = (await server.query("SELECT count(*) AS n FROM files"))[0].n;
        const submissions = (await server.query("SELECT count(*) AS n FROM submissions"))[0].n;
        const res = await post(multipart(r.parts()));
        expect([res.status, res.body.code]).toEqual([r.status, r.code]);
        if (r.field) expect(res.body.errors).toEqual([expect.objectContaining({ field: r.field, code: r.code })]);
        expect(store.objects().length).toBe(before);
        expect((await server.query("SELECT count(*) AS n FROM files"))[0].n).toBe(rows);
        expect((await server.query("SELECT count(*) AS n FROM submissions"))[0].n).toBe(submissions);
      });
    }

    test("a form without the files setting refuses a file with NO_FILE_UPLOADS, on /f/ too", async () => {
      const other = await seedOwner(server, "nofiles@example.com");
      const before = store.objects().length;
      const api = await post(
        multipart([
          ["formId", other.formId],
          ["a", PNG, "a.png"],
        ]),
        other.key,
      );
      expect([api.status, api.body.code, api.body.errors?.[0]?.field]).toEqual([400, "NO_FILE_UPLOADS", "a"]);
      const dropIn = await server.json(`/f/${other.formId}`, {
        method: "POST",
        headers: { accept: "application/json" },
        body: multipart([
          ["email", "a@example.com"],
          ["photo", PNG, "a.png"],
        ]),
      });
      expect([dropIn.status, dropIn.body.code]).toEqual([400, "NO_FILE_UPLOADS"]);
      expect(store.objects().length).toBe(before);
    });

    test("an empty file input is no file, and a repeated name gives a list", async () => {
      const res = await server.json(`/f/${owner.formId}`, {
        method: "POST",
        headers: { accept: "application/json" },
        body: multipart([
          ["email", "b@example.com"],
          ["none", new Uint8Array(0), ""],
          ["photos[]", PNG, "1.png"],
          ["photos[]", PNG, "2.png"],
        ]),
      });
      expect(res.status).toBe(200);
      const [row] = await server.query("SELECT data FROM submissions WHERE id = ?", res.body.submissionId);
      const data = JSON.parse(row.data);
      expect(data.none).toBeUndefined();
      expect(data.photos.map((p: { name: string }) => p.name)).toEqual(["1.png", "2.png"]);
    });

    test("exports show each file's name and download path (CSV and JSON, HTTP and CLI), and a person's export lists their files", async () => {
      const res = await post(
        multipart([
          ["formId", owner.formId],
          ["email", "pat@example.com"],
          ["cv", PDF, "cv.pdf"],
        ]),
      );
      expect(res.status).toBe(200);
      const id = res.body.submissionId;
      const [row] = await server.query("SELECT id FROM files WHERE submission_id = ?", id);
      const path = `/api/v1/forms/${owner.formId}/submissions/${id}/files/${row.id}`;
      const csv = await server.request(`/api/v1/forms/${owner.formId}/submissions/export?format=csv`, {
        key: owner.key,
      });
      const csvText = await csv.text();
      expect(csvText).toContain(`${id},`);
      expect(csvText).toContain(`cv.pdf ${path}`);
      const json = await server.request(`/api/v1/forms/${owner.formId}/submissions/export?format=json`, {
        key: owner.key,
      });
      const exported = ((await json.json()) as any[]).find((s) => s.id === id);
      expect(exported.data.cv).toMatchObject({ file: row.id, name: "cv.pdf", path });
      // The path is the owner's download: it gives the bytes with the key.
      const download = await server.request(path, { key: owner.key });
      expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
      const cliCsv = await runCliAsync(["submissions", "export", owner.formId], { db: server.db });
      expect(cliCsv.stdout).toContain(`cv.pdf ${path}`);
      const person = await cliJsonAsync(["submissions", "export", "--email", "pat@example.com"], { db: server.db });
      expect(person.files).toEqual([
        expect.objectContaining({
          id: row.id,
          submissionId: id,
          field: "cv",
          name: "cv.pdf",
          size: PDF.byteLength,
          path,
        }),
      ]);
    });

    const deletions: { what: string; remove: (submissionId: string) => Promise<void> }[] = [
      {
        what: "erasing the submitter's address",
        remove: async () => {
          const erased = await server.services.lifecycle.eraseByEmail(OPERATOR, "gone@example.com", null);
          expect(erased.erased).toBe(1);
        },
      },
      {
        what: "retention",
        remove: async (submissionId) => {
          await server.services.forms.updateForm(OPERATOR, owner.formId, { retentionDays: 30 });
          await server.exec(
            "UPDATE submissions SET created_at = ? WHERE id = ?",
            new Date(Date.now() - 40 * 86_400_000).toISOString(),
            submissionId,
          );
          try {
            expect(await server.services.lifecycle.expireRetained()).toBe(1);
          } finally {
            await server.services.forms.updateForm(OPERATOR, owner.formId, { retentionDays: null });
          }
        },
      },
    ];
    for (const d of deletions) {
      test(`${d.what} removes the files from the store`, async () => {
        const res = await post(
          multipart([
            ["formId", owner.formId],
            ["email", "gone@example.com"],
            ["cv", PDF, "cv.pdf"],
            ["photo", PNG, "me.png"],
          ]),
        );
        expect(res.status).toBe(200);
        const keys = (await server.query("SELECT key FROM files WHERE submission_id = ?", res.body.submissionId)).map(
          (r) => r.key as string,
        );
        expect(keys.length).toBe(2);
        const held = () => store.objects().filter((o) => keys.some((k) => o.includes(k)));
        expect(held().length).toBe(2);
        await d.remove(res.body.submissionId);
        expect(held()).toEqual([]);
        expect(await server.query("SELECT id FROM files WHERE key IN (?, ?)", keys[0]!, keys[1]!)).toEqual([]);
      });
    }

    test("deleting the form removes every file of its submissions from the store", async () => {
      const other = await seedOwner(server, "deleted-form@example.com");
      await server.services.forms.updateForm(OPERATOR, other.formId, { files: DEFAULT_FILES });
      for (const name of ["a.pdf", "b.pdf"]) {
        const res = await post(
          multipart([
            ["formId", other.formId],
            ["cv", PDF, name],
          ]),
          other.key,
        );
        expect(res.status).toBe(200);
      }
      const keys = (await server.query("SELECT key FROM files WHERE form_id = ?", other.formId)).map(
        (r) => r.key as string,
      );
      expect(keys.length).toBe(2);
      const held = () => store.objects().filter((o) => keys.some((k) => o.includes(k)));
      expect(held().length).toBe(2);
      const del = await server.send("DELETE", `/forms/${other.formId}`, other.key);
      expect(del.status).toBe(200);
      expect(held()).toEqual([]);
      expect(await server.query("SELECT id FROM files WHERE key IN (?, ?)", keys[0]!, keys[1]!)).toEqual([]);
    });

    test("deleting the submission removes its file from the store", async () => {
      const res = await post(
        multipart([
          ["formId", owner.formId],
          ["cv", PDF, "cv.pdf"],
        ]),
      );
      const before = store.objects().length;
      const del = await server.send("DELETE", `/forms/${owner.formId}/submissions/${res.body.submissionId}`, owner.key);
      expect(del.status).toBe(200);
      expect(store.objects().length).toBe(before - 1);
      expect(await server.query("SELECT id FROM files WHERE submission_id = ?", res.body.submissionId)).toEqual([]);
    });
  });
}

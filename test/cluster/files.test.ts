import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliJson, spawnServe } from "../helpers/harness";
import { onPostgres } from "../helpers/engine";
import { testPostgres } from "../helpers/postgres";
import { startS3, type S3Server } from "../helpers/s3";
import { openObjectStore } from "../../src/lib/object-store";

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

let s3: S3Server;
beforeAll(async () => void (s3 = await startS3()));
afterAll(() => s3.stop());

// Instances sharing a PostgreSQL database share the store too (CONTRACT "Files"): one takes the upload, any serves it.
describe.if(onPostgres)("uploads on two instances sharing a PostgreSQL database and an S3 bucket", () => {
  test("a file uploaded through one instance downloads through the other, and deleting it there empties the bucket", async () => {
    const db = await (await testPostgres()).newDatabase();
    const env = { ...s3.env, FORMSVC_FILES: `s3://${s3.bucket}/uploads`, FORMSVC_RATE_LIMIT: "1000" };
    const [a, b] = await Promise.all([spawnServe(db, env), spawnServe(db, env)]);
    try {
      const key = cliJson<{ key: string }>(["keys", "create", "--owner", "owner@example.com"], { db, env }).key;
      const form = cliJson<{ id: string }>(
        ["forms", "create", "--owner", "owner@example.com", "--name", "Jobs", "--files", "on"],
        { db, env },
      );
      const body = new FormData();
      body.append("formId", form.id);
      body.append("name", "Ada");
      body.append("photo", new Blob([PNG]), "me.png");
      const posted = await fetch(`${a.url}/api/v1/forms/submit`, {
        method: "POST",
        headers: { "x-api-key": key },
        body,
      });
      expect(posted.status).toBe(200);
      const { submissionId } = (await posted.json()) as { submissionId: string };

      const listed = await fetch(`${b.url}/api/v1/forms/${form.id}/submissions`, { headers: { "x-api-key": key } });
      const photo = ((await listed.json()) as { submissions: { data: { photo: { file: string } } }[] }).submissions[0]!
        .data.photo;
      const download = await fetch(`${b.url}/api/v1/forms/${form.id}/submissions/${submissionId}/files/${photo.file}`, {
        headers: { "x-api-key": key },
      });
      expect([download.status, download.headers.get("content-type")]).toEqual([200, "image/png"]);
      expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);

      const bucket = openObjectStore(`s3://${s3.bucket}/uploads`, s3.settings);
      const keys = async () => {
        const out: string[] = [];
        for await (const o of bucket.list("")) out.push(o.key);
        return out;
      };
      expect((await keys()).filter((k) => k.endsWith(photo.file))).toHaveLength(1);
      const deleted = await fetch(`${b.url}/api/v1/forms/${form.id}/submissions/${submissionId}`, {
        method: "DELETE",
        headers: { "x-api-key": key },
      });
      expect(deleted.status).toBe(200);
      expect((await keys()).filter((k) => k.endsWith(photo.file))).toEqual([]);
    } finally {
      for (const p of [a, b]) {
        p.proc.kill("SIGTERM");
        await p.proc.exited;
      }
    }
  });
});

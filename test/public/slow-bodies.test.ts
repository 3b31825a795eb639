import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { seedOwner, startTestServer, tempDir, type Owner, type TestServer } from "../helpers/harness";
import { rawPost, type RawPost } from "../helpers/raw-post";
import { fixedClock } from "../../src/lib/clock";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

const B = "----formsvc-slow";
const part = (headers: string, content = "") => `--${B}\r\n${headers}\r\n\r\n${content}\r\n`;
const closing = `--${B}--\r\n`;
const MULTIPART = { "Content-Type": `multipart/form-data; boundary=${B}`, Accept: "application/json" };

/** Writes `total` bytes of `fill` in pieces of `piece` every `everyMs`, until done or the connection closes (or, `untilAnswered`, an answer comes). */
async function trickle(
  post: RawPost,
  total: number,
  piece: number,
  everyMs: number,
  fill = "x",
  untilAnswered = false,
) {
  for (let sent = 0; sent < total && post.open() && !(untilAnswered && post.received()); sent += piece) {
    post.write(fill.repeat(Math.min(piece, total - sent)));
    await Bun.sleep(everyMs);
  }
}

// Real time: the rate is measured over 30 s, and Bun's own idle timeout (30 s, not reset by a body's bytes) is what
// cut a steady upload before. The clients run side by side, so the whole takes about 35 s.
describe("bodies that come slowly", () => {
  const own = tempDir();
  let server: TestServer;
  let owner: Owner;
  const stored = async () =>
    (await server.query("SELECT count(*) AS n FROM submissions WHERE form_id = ?", owner.formId))[0].n;

  beforeAll(async () => {
    server = await startTestServer({
      dir: own.dir,
      config: { rateLimit: 100_000, publicRateLimit: 100_000, files: join(own.dir, "files") },
    });
    owner = await seedOwner(server, "slow@example.com");
    await server.services.forms.updateForm(OPERATOR, owner.formId, {
      files: { ...DEFAULT_FILES, maxFileBytes: 1_000_000 },
      publicEndpoint: true,
    });
  });
  afterAll(async () => {
    await server.close();
    own.cleanup();
  });

  test("under FORMSVC_MIN_BODY_RATE over 30 s is a 408; at the rate, an upload is read past 30 s; a refusal late in a slow upload reaches its client", async () => {
    const before = await stored();
    // 1. 10 bytes a second of a urlencoded post: ended with 408 BODY_TOO_SLOW, nothing stored.
    const slow = await rawPost(server.url, `/f/${owner.formId}`, {
      "Content-Type": "application/x-www-form-urlencoded",
      "Content-Length": "100000",
      Accept: "application/json",
    });
    slow.write("message=");
    const slowDone = trickle(slow, 100_000, 10, 1000, "x", true);

    // 2. A multipart upload at 2 KiB a second for 36 s: read to its end and stored.
    const steady = await rawPost(server.url, `/f/${owner.formId}`, MULTIPART);
    steady.write(
      `${part('Content-Disposition: form-data; name="message"', "hi")}--${B}\r\nContent-Disposition: form-data; name="notes"\r\n\r\n`,
    );
    const steadyDone = trickle(steady, 36 * 2048, 2048, 1000).then(() => {
      steady.write(`\r\n${closing}`);
      steady.end();
    });

    // 3. An upload at 40 KB a second whose file passes the form's maxFileBytes (1,000,000) after ~25 s, its client
    // writing 8 s more (its Content-Length) before it reads: it hears the 413 (before, the connection was reset at 30 s).
    const total = 1_320_000;
    const late = await rawPost(server.url, `/f/${owner.formId}`, { ...MULTIPART, "Content-Length": String(total) });
    const lateHead = part(
      'Content-Disposition: form-data; name="upload"; filename="a.txt"\r\nContent-Type: text/plain',
    );
    late.write(lateHead.slice(0, -2));
    const lateDone = trickle(late, total - lateHead.length + 2, 4000, 100, "y");

    await Promise.all([slowDone, steadyDone, lateDone]);
    expect(await slow.status(1000)).toBe(408);
    expect(slow.received()).toContain("BODY_TOO_SLOW");
    expect(await steady.status(5000)).toBe(200);
    expect(late.sent()).toBe(total);
    expect(await late.status(5000)).toBe(413);
    expect(late.received()).toContain("FILES_TOO_BIG");
    expect(await stored()).toBe(before + 1);
    for (const post of [slow, steady, late]) post.destroy();
  }, 60_000);

  test("a fifth upload from one address while four are being read is a 429; once they end, the next is read", async () => {
    const open: RawPost[] = [];
    for (let i = 0; i < 4; i++) {
      const post = await rawPost(server.url, `/f/${owner.formId}`, MULTIPART);
      post.write(part('Content-Disposition: form-data; name="message"', `upload ${i}`));
      open.push(post);
    }
    await Bun.sleep(200); // the four are being read
    const fifth = await server.json(`/f/${owner.formId}`, {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${B}`, accept: "application/json" },
      body: part('Content-Disposition: form-data; name="message"', "fifth") + closing,
    });
    expect([fifth.status, fifth.body.code]).toEqual([429, "RATE_LIMITED"]);
    for (const post of open) {
      post.write(closing);
      post.end();
    }
    expect(await Promise.all(open.map((p) => p.status()))).toEqual([200, 200, 200, 200]);
    const next = await server.json(`/f/${owner.formId}`, {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${B}`, accept: "application/json" },
      body: part('Content-Disposition: form-data; name="message"', "next") + closing,
    });
    expect(next.status).toBe(200);
    for (const post of open) post.destroy();
  });
});

describe("an upload that outlasts the orphan sweep's hour", () => {
  test("keeps its file and its row: the sweep removes only uploads that stopped coming", async () => {
    const own = tempDir();
    const clock = fixedClock("2026-11-28T10:00:00Z");
    const server = await startTestServer({ dir: own.dir, clock, config: { files: join(own.dir, "files") } });
    let post: RawPost | undefined;
    try {
      const owner = await seedOwner(server, "long-upload@example.com");
      await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES, publicEndpoint: true });
      const post = await rawPost(server.url, `/f/${owner.formId}`, MULTIPART);
      post.write(
        `--${B}\r\nContent-Disposition: form-data; name="cv"; filename="cv.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      );
      // Ninety minutes of a slow upload, on the server's clock: a piece every ten (each more than the sniffed start).
      const PIECE = 70_000;
      for (let minute = 0; minute < 90; minute += 10) {
        post.write("z".repeat(PIECE));
        await Bun.sleep(100);
        clock.advance(10 * 60_000);
      }
      post.write("z".repeat(PIECE));
      await Bun.sleep(100);
      await server.jobs.run("sweep-orphan-files");
      expect((await server.query("SELECT state FROM files")).map((r) => r.state)).toEqual(["pending"]);
      post.write(`\r\n${closing}`);
      post.end();
      expect(await post.status()).toBe(200);
      const [file] = await server.query("SELECT state, size FROM files");
      expect(file).toEqual({ state: "stored", size: 10 * PIECE });
    } finally {
      post?.destroy();
      await server.close();
      own.cleanup();
    }
  });
});

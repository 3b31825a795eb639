import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { seedOwner, startTestServer, tempDir, type Owner, type TestServer } from "../helpers/harness";
import { OPERATOR } from "../../src/lib/principal";
import { DEFAULT_FILES } from "../../src/modules/files/model";

// The industry's test string: every scanner reports it, and it harms nothing.
const EICAR = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";

type Mode = "scan" | "silent" | "hang-up";

/** What the stand-in got in one INSTREAM session: the bytes, once the zero-length chunk came. */
interface Session {
  buffer: Buffer;
  bytes: Buffer[];
  ended: boolean;
}

/**
 * A stand-in clamd on loopback speaking INSTREAM: `zINSTREAM\0`, then chunks of a 4-byte big-endian
 * length and the bytes, a zero length last. `scan` answers `stream: OK\0` or, when the bytes hold the
 * EICAR string, `stream: Eicar-Signature FOUND\0`; `silent` takes everything and never answers;
 * `hang-up` closes the connection as soon as it opens.
 */
function standInClamd() {
  const state = { mode: "scan" as Mode, scanned: [] as Buffer[] };
  const server = Bun.listen<Session>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { buffer: Buffer.alloc(0), bytes: [], ended: false };
        if (state.mode === "hang-up") s.end();
      },
      data(s, data) {
        const session = s.data;
        session.buffer = Buffer.concat([session.buffer, data]);
        if (!session.bytes.length && session.buffer.length >= 10) {
          expect(session.buffer.subarray(0, 10).toString("latin1")).toBe("zINSTREAM\0");
          session.buffer = session.buffer.subarray(10);
          session.bytes.push(Buffer.alloc(0));
        }
        while (!session.ended && session.bytes.length && session.buffer.length >= 4) {
          const length = session.buffer.readUInt32BE(0);
          if (session.buffer.length < 4 + length) break;
          // clamd refuses a chunk over its StreamMaxLength: formsvc sends at most 64 KiB at a time.
          expect(length).toBeLessThanOrEqual(65_536);
          session.bytes.push(Buffer.from(session.buffer.subarray(4, 4 + length)));
          session.buffer = session.buffer.subarray(4 + length);
          if (length === 0) session.ended = true;
        }
        if (!session.ended || state.mode !== "scan") return;
        const whole = Buffer.concat(session.bytes);
        state.scanned.push(whole);
        s.write(whole.includes(EICAR) ? "stream: Eicar-Signature FOUND\0" : "stream: OK\0");
        s.end();
      },
    },
  });
  return { state, address: `tcp://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe("virus scanning through clamd (FORMSVC_CLAMD), against an INSTREAM stand-in", () => {
  const own = tempDir();
  const clamd = standInClamd();
  const dir = join(own.dir, "files");
  let server: TestServer;
  let owner: Owner;
  beforeAll(async () => {
    server = await startTestServer({ dir: own.dir, config: { rateLimit: 100_000, files: dir, clamd: clamd.address } });
    owner = await seedOwner(server, "scanned@example.com");
    await server.services.forms.updateForm(OPERATOR, owner.formId, { files: DEFAULT_FILES });
  });
  afterAll(async () => {
    await server.close();
    clamd.stop();
    own.cleanup();
  });

  const stored = () => {
    try {
      return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    } catch {
      return 0;
    }
  };
  const count = async (table: string) => (await server.query(`SELECT count(*) AS n FROM ${table}`))[0].n as number;
  const post = (bytes: Buffer, name: string) => {
    const form = new FormData();
    form.append("formId", owner.formId);
    form.append("doc", new Blob([new Uint8Array(bytes)]), name);
    return server.json("/api/v1/forms/submit", { method: "POST", key: owner.key, body: form });
  };

  // Larger than one 64 KiB piece, so the framing is tested across several.
  const CLEAN = Buffer.from("a clean letter of application\n".repeat(7000));

  test("a clean file passes: clamd got exactly its bytes, and it is stored", async () => {
    clamd.state.mode = "scan";
    const before = stored();
    const res = await post(CLEAN, "letter.txt");
    expect(res.status).toBe(200);
    expect(clamd.state.scanned.at(-1)!.equals(CLEAN)).toBe(true);
    expect(stored()).toBe(before + 1);
  });

  test("a large file reaches clamd whole: a chunk the socket cannot take at once waits, it is not dropped", async () => {
    clamd.state.mode = "scan";
    const large = Buffer.alloc(9 * 1024 * 1024, "formsvc ");
    const res = await post(large, "large.txt");
    expect(res.status).toBe(200);
    expect(clamd.state.scanned.at(-1)!.equals(large)).toBe(true);
  });

  const refusals: { why: string; mode: Mode; bytes: Buffer; status: number; code: string; within: [number, number] }[] =
    [
      {
        why: "the EICAR string is found: 400 FILE_INFECTED naming the field",
        mode: "scan",
        bytes: Buffer.from(`${EICAR}\n`),
        status: 400,
        code: "FILE_INFECTED",
        within: [0, 5000],
      },
      {
        why: "clamd hangs up without an answer: 503",
        mode: "hang-up",
        bytes: CLEAN,
        status: 503,
        code: "UNAVAILABLE",
        within: [0, 5000],
      },
      {
        why: "clamd takes the file and never answers: 503 after 10 s",
        mode: "silent",
        bytes: CLEAN,
        status: 503,
        code: "UNAVAILABLE",
        within: [9500, 13_000],
      },
    ];
  for (const r of refusals) {
    test(`${r.why}, and nothing is stored`, async () => {
      clamd.state.mode = r.mode;
      const [files, submissions, before] = [await count("files"), await count("submissions"), stored()];
      const started = Date.now();
      const res = await post(r.bytes, "doc.txt");
      const took = Date.now() - started;
      expect([res.status, res.body.code]).toEqual([r.status, r.code]);
      if (r.code === "FILE_INFECTED") expect(res.body.errors).toEqual([expect.objectContaining({ field: "doc" })]);
      expect(took).toBeGreaterThanOrEqual(r.within[0]);
      expect(took).toBeLessThan(r.within[1]);
      expect([await count("files"), await count("submissions"), stored()]).toEqual([files, submissions, before]);
    }, 30_000);
  }
});

/**
 * The reads an upgrade must answer as the last release did, written once: the release's fixture
 * generator (test/fixtures/release-NN/make.ts) records the old server's answers with them, and
 * test/db/release-upgrade.test.ts replays them on the current server over the same rows.
 *
 * Every caller (each key, each session) makes every read, so the answers say both what each read
 * shows and who may make it: a status that changes is a key or a session that lost (or gained) access.
 */
import { join } from "node:path";
import type { TestServer } from "./harness";

/** Who makes the reads: a key (sent as X-API-Key) or a session (its `name=value` cookie). */
export type Caller = { name: string } & ({ key: string } | { cookie: string });

/** Every row of every table, by table, parents before children (as `tablesToCopy` orders them). */
export type Rows = Record<string, Record<string, unknown>[]>;

/** One caller's answer to one read: a JSON body, a file's digest, or an error's code (its prose may change). */
export type Answer =
  | { status: number; body: unknown }
  | { status: number; file: { sha256: string; type: string | null; disposition: string | null } }
  | { status: number; code: string | null };

/** Answers by read (`GET /api/v1/…`), then by caller's name; in a fixture, an answer the same as an earlier caller's names that caller. */
export type Answers = Record<string, Record<string, Answer | { sameAs: string }>>;

/** The server's settings for the recording and the replay alike: files in the test's folder, no rate limit in the way. */
export const releaseConfig = (dir: string) => ({
  files: join(dir, "files"),
  rateLimit: 100_000,
  publicRateLimit: 100_000,
  webhookAllowPrivate: true,
});

/** The reads over these rows: the lists, and each form, submission, file and webhook by its id. */
export function readsOf(rows: Rows): string[] {
  const byId = (table: string) =>
    (rows[table] ?? []).toSorted((a, b) => String(a.id).localeCompare(String(b.id))) as Record<string, any>[];
  const reads = ["/auth/me", "/forms/list", "/keys", "/spam-filter"];
  for (const form of byId("forms")) {
    const f = `/forms/${form.id}`;
    reads.push(f, `${f}/submissions?status=inbox&limit=100`, `${f}/submissions?status=spam&limit=100`);
    reads.push(`${f}/analytics`, `${f}/webhooks`, `${f}/users-joined`);
  }
  for (const s of byId("submissions")) reads.push(`/forms/${s.form_id}/submissions/${s.id}`);
  for (const file of byId("files"))
    if (file.submission_id) reads.push(`/forms/${file.form_id}/submissions/${file.submission_id}/files/${file.id}`);
  for (const hook of byId("webhooks")) reads.push(`/webhooks/${hook.id}/deliveries`);
  return reads.map((path) => `GET /api/v1${path}`);
}

/** Makes every read as every caller, one after the other (a fixed order, so what a read writes, e.g. a key's last use, is the same each time). */
export async function replay(server: TestServer, callers: Caller[], rows: Rows): Promise<Answers> {
  const answers: Answers = {};
  for (const read of readsOf(rows)) {
    const path = read.slice("GET ".length);
    answers[read] = {};
    for (const caller of callers) {
      const headers: Record<string, string> =
        "key" in caller ? { "x-api-key": caller.key } : { cookie: caller.cookie, origin: server.url };
      answers[read][caller.name] = await answerOf(server, await server.request(path, { headers }));
    }
  }
  return answers;
}

/** The answers with each repeat of an earlier caller's answer to the same read written as `{ sameAs: caller }`: what a fixture keeps. */
export function compact(answers: Answers): Answers {
  return Object.fromEntries(
    Object.entries(answers).map(([read, byCaller]) => {
      const firsts = new Map<string, string>();
      const kept = Object.entries(byCaller).map(([caller, answer]) => {
        const text = JSON.stringify(answer);
        const first = firsts.get(text);
        if (!first) firsts.set(text, caller);
        return [caller, first ? { sameAs: first } : answer];
      });
      return [read, Object.fromEntries(kept)];
    }),
  );
}

async function answerOf(server: TestServer, res: Response): Promise<Answer> {
  const type = res.headers.get("content-type");
  if (res.ok && !type?.startsWith("application/json")) {
    const bytes = await res.arrayBuffer();
    return {
      status: res.status,
      file: {
        sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
        type,
        disposition: res.headers.get("content-disposition"),
      },
    };
  }
  // The server's own address (a port chosen at start) in links is the same place on both runs.
  const body = JSON.parse((await res.text()).replaceAll(server.url, "<server>"));
  return res.ok ? { status: res.status, body } : { status: res.status, code: body?.code ?? null };
}

/**
 * How `now` differs from `before`, one line per difference (empty when it keeps everything): a
 * status, a missing or changed value anywhere in a body. A field `now` adds (a new setting, a team's
 * id) is no difference; an item added to or gone from a list is.
 */
export function differences(before: Answers, now: Answers): string[] {
  const found: string[] = [];
  for (const [read, byCaller] of Object.entries(before))
    for (const [caller, written] of Object.entries(byCaller)) {
      const was = "sameAs" in written ? (byCaller[written.sameAs] as Answer) : written;
      const is = now[read]?.[caller] as Answer | undefined;
      const at = `${read} as ${caller}`;
      if (!is) found.push(`${at}: not made`);
      else if (is.status !== was.status) found.push(`${at}: status ${was.status}, now ${is.status}`);
      else compare(was, is, at, found);
    }
  return found;
}

function compare(was: unknown, is: unknown, at: string, found: string[]): void {
  if (Array.isArray(was)) {
    if (!Array.isArray(is) || is.length !== was.length)
      return void found.push(`${at}: ${describe(was)}, now ${describe(is)}`);
    was.forEach((item, i) => compare(item, is[i], `${at}[${i}]`, found));
  } else if (was !== null && typeof was === "object") {
    if (is === null || typeof is !== "object" || Array.isArray(is))
      return void found.push(`${at}: an object, now ${describe(is)}`);
    for (const [k, v] of Object.entries(was)) {
      if (!(k in is)) found.push(`${at}.${k}: missing (was ${describe(v)})`);
      else compare(v, (is as Record<string, unknown>)[k], `${at}.${k}`, found);
    }
  } else if (was !== is) found.push(`${at}: ${describe(was)}, now ${describe(is)}`);
}

const describe = (v: unknown) =>
  Array.isArray(v) ? `${v.length} items` : (JSON.stringify(v)?.slice(0, 80) ?? String(v));

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { cliJson, runCliAsync, spawnServe, type ServeProcess } from "../helpers/harness";
import { onPostgres } from "../helpers/engine";
import { testPostgres } from "../helpers/postgres";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { solvedPayload } from "../helpers/spam";

/**
 * Two `formsvc serve` processes on one PostgreSQL database, requests alternated between them: to
 * every client they must behave as one service.
 */
const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function cluster(env: Record<string, string> = {}) {
  const db = await (await testPostgres()).newDatabase();
  // Started together on an empty database: one creates the schema, the other waits for it.
  const [a, b] = await Promise.all([spawnServe(db, env), spawnServe(db, env)]);
  for (const p of [a, b]) stops.push(() => (p.proc.kill(), p.proc.exited));
  const key = cliJson<{ key: string; id: string }>(["keys", "create", "--owner", "owner@example.com"], { db }).key;
  const form = cliJson<{ id: string }>(
    [
      "forms",
      "create",
      "--owner",
      "owner@example.com",
      "--name",
      "Contact",
      "--type",
      "contact",
      "--email-notifications",
      "--developer-notifications",
    ],
    { db },
  );
  const ask = (p: ServeProcess, path: string, init: RequestInit & { key?: string } = {}) =>
    p.fetch(p.url + path, {
      ...init,
      headers: {
        "x-api-key": init.key ?? key,
        "content-type": "application/json",
        origin: p.url,
        ...(init.headers as Record<string, string>),
      },
    });
  const submit = (p: ServeProcess, data: Record<string, unknown>) =>
    ask(p, "/api/v1/forms/submit", { method: "POST", body: JSON.stringify({ formId: form.id, data }) });
  // Ends both instances now, their connections with them (each holds a pool; the cluster allows so many clients).
  const stop = async () => {
    for (const p of [a, b]) {
      p.proc.kill("SIGTERM");
      await p.proc.exited;
    }
  };
  return { db, a, b, key, formId: form.id, ask, submit, stop };
}

// Several instances share a database only on PostgreSQL: these run in the PostgreSQL pass of the suite.
describe.if(onPostgres)("two instances on one PostgreSQL database", () => {
  test("share each key's rate limit: the quota is spent across both, and the next request is refused by either", async () => {
    const c = await cluster({ FORMSVC_RATE_LIMIT: "6" });
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await c.ask(i % 2 ? c.b : c.a, "/api/v1/forms/list");
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    expect((await c.ask(c.a, "/api/v1/forms/list")).status).toBe(429);
    expect((await c.ask(c.b, "/api/v1/forms/list")).status).toBe(429);
  });

  test("hold a key's shared rate limit under concurrent requests to both instances: the quota and never more", async () => {
    const c = await cluster({ FORMSVC_RATE_LIMIT: "50", FORMSVC_RATE_WINDOW: "60" });
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 160 }, (_, i) => c.ask(i % 2 ? c.b : c.a, "/api/v1/forms/list").then((r) => r.status)),
    );
    // The bucket refills 50 tokens a minute: what the run's own duration added, at most.
    const refilled = Math.ceil(((performance.now() - started) / 60_000) * 50);
    const allowed = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(allowed).toBeGreaterThanOrEqual(50);
    expect(allowed).toBeLessThanOrEqual(50 + refilled);
    expect((await c.ask(c.a, "/api/v1/forms/list")).status).toBe(429);
    expect((await c.ask(c.b, "/api/v1/forms/list")).status).toBe(429);
    await c.stop();
  });

  test("page with a cursor from one instance on the other, with no submission missed or repeated", async () => {
    const c = await cluster();
    for (let i = 0; i < 5; i++) expect((await c.submit(i % 2 ? c.b : c.a, { n: i })).status).toBe(200);
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const from: ServeProcess = page % 2 ? c.b : c.a;
      const res = await c.ask(
        from,
        `/api/v1/forms/${c.formId}/submissions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { submissions: { data: { n: number } }[]; nextCursor: string | null };
      seen.push(...body.submissions.map((s) => s.data.n));
      cursor = body.nextCursor;
    }
    expect(seen).toEqual([4, 3, 2, 1, 0]);
    expect(cursor).toBeNull();
  });

  test("answer analytics cached on one instance with what the other has just stored, moved or deleted", async () => {
    const c = await cluster();
    const total = async (p: ServeProcess) =>
      (
        (await (await c.ask(p, `/api/v1/forms/${c.formId}/analytics?period=year`)).json()) as {
          totalSubmissions: number;
        }
      ).totalSubmissions;
    const stored = async () =>
      ((await (await c.submit(c.b, { n: 1 })).json()) as { submissionId: string }).submissionId;
    const first = await stored();
    // Read twice on a: the second answer may come from its cache.
    expect([await total(c.a), await total(c.a)]).toEqual([1, 1]);
    const second = await stored();
    expect(await total(c.a)).toBe(2);
    expect((await c.ask(c.b, `/api/v1/forms/${c.formId}/submissions/${first}/spam`, { method: "POST" })).status).toBe(
      200,
    );
    expect(await total(c.a)).toBe(1);
    expect((await c.ask(c.b, `/api/v1/forms/${c.formId}/submissions/${second}`, { method: "DELETE" })).status).toBe(
      200,
    );
    expect(await total(c.a)).toBe(0);
  });

  test("refuse a key at the other instance's next request once one instance revoked it", async () => {
    const c = await cluster();
    const created = await c.ask(c.a, "/api/v1/keys", { method: "POST", body: JSON.stringify({ name: "temporary" }) });
    expect(created.status).toBe(200);
    const second = (await created.json()) as { id: string; key: string };
    // Both instances have now seen (and may cache) the new key.
    expect((await c.ask(c.b, "/api/v1/forms/list", { key: second.key })).status).toBe(200);
    expect((await c.ask(c.a, "/api/v1/forms/list", { key: second.key })).status).toBe(200);
    expect((await c.ask(c.a, `/api/v1/keys/${second.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await c.ask(c.b, "/api/v1/forms/list", { key: second.key })).status).toBe(401);
    expect((await c.ask(c.a, "/api/v1/forms/list", { key: second.key })).status).toBe(401);
  });

  test("apply a form's settings changed through one instance at the other's next submit, though its own submits keep the form cached: a cap, a lifted cap, a pause", async () => {
    const c = await cluster();
    // Instance a caches the form and moves its count with submits of its own: the settings stay cached.
    for (let i = 0; i < 3; i++) expect((await c.submit(c.a, { i })).status).toBe(200);
    const count = async (p: ServeProcess) =>
      ((await (await c.ask(p, `/api/v1/forms/${c.formId}`)).json()) as { submissionCount: number }).submissionCount;
    expect(await count(c.a)).toBe(3);
    expect((await c.submit(c.a, { i: 3 })).status).toBe(200);
    expect(await count(c.a)).toBe(4);
    const change = (settings: Record<string, unknown>) =>
      c.ask(c.b, `/api/v1/forms/${c.formId}`, { method: "PATCH", body: JSON.stringify(settings) });
    // A cap set through b: a's next submit takes the last place, the one after it is refused.
    expect((await change({ maxSubmissions: 5 })).status).toBe(200);
    expect((await c.submit(c.a, { i: 4 })).status).toBe(200);
    const refused = await c.submit(c.a, { i: 5 });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([403, "FORM_CLOSED"]);
    // Paused through b, the cap lifted: a refuses at once, though its cached copy was behind only in its count.
    expect((await change({ maxSubmissions: null })).status).toBe(200);
    expect((await c.submit(c.a, { i: 6 })).status).toBe(200);
    expect((await change({ paused: true })).status).toBe(200);
    expect((await c.submit(c.a, { i: 7 })).status).toBe(403);
    expect(await count(c.a)).toBe(6);
    expect(await count(c.b)).toBe(6);
    await c.stop(); // their pools' connections: the tests after this one start clusters of their own
  });

  test("store a submission once when its retries with one Idempotency-Key reach both instances at the same time", async () => {
    const c = await cluster();
    for (let round = 0; round < 5; round++) {
      const init = {
        method: "POST",
        headers: { "idempotency-key": `retry-${round}` },
        body: JSON.stringify({ formId: c.formId, data: { round } }),
      };
      const answers = await Promise.all([
        c.ask(c.a, "/api/v1/forms/submit", init),
        c.ask(c.b, "/api/v1/forms/submit", init),
        c.ask(c.a, "/api/v1/forms/submit", init),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      const ids = new Set(
        await Promise.all(answers.map(async (r) => ((await r.json()) as { submissionId: string }).submissionId)),
      );
      expect(ids.size).toBe(1);
    }
    const form = (await (await c.ask(c.b, `/api/v1/forms/${c.formId}`)).json()) as { submissionCount: number };
    expect(form.submissionCount).toBe(5);
  });

  test("accept a proof of work fetched from one instance at the other, once", async () => {
    const c = await cluster();
    const publishable = cliJson<{ key: string }>(["keys", "create", "--owner", "owner@example.com", "--publishable"], {
      db: c.db,
    }).key;
    cliJson(["forms", "update", c.formId, "--challenge", "pow"], { db: c.db });
    const challenge = await (await c.ask(c.a, `/api/v1/forms/${c.formId}/challenge`, { key: publishable })).json();
    const { payload } = await solvedPayload(challenge);
    const body = JSON.stringify({ formId: c.formId, data: { message: "hi" }, altcha: payload });
    expect((await c.ask(c.b, "/api/v1/forms/submit", { method: "POST", key: publishable, body })).status).toBe(200);
    const replay = await c.ask(c.a, "/api/v1/forms/submit", { method: "POST", key: publishable, body });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe("CHALLENGE_FAILED");
  });

  test("keep a login session made on one instance valid on the other, and ended on both by a logout on one", async () => {
    const c = await cluster();
    const password = "correct horse battery staple";
    expect(
      (
        await runCliAsync(["owners", "set-password", "owner@example.com", "--password-stdin"], {
          db: c.db,
          stdin: password,
        })
      ).code,
    ).toBe(0);
    const login = await c.a.fetch(c.a.url + "/api/v1/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", origin: c.a.url },
      body: JSON.stringify({ email: "owner@example.com", password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const me = (p: ServeProcess) => p.fetch(p.url + "/api/v1/auth/me", { headers: { cookie } });
    expect((await me(c.b)).status).toBe(200);
    expect(
      (await c.b.fetch(c.b.url + "/api/v1/auth/logout", { method: "POST", headers: { cookie, origin: c.b.url } }))
        .status,
    ).toBeLessThan(300);
    expect((await me(c.a)).status).toBe(401);
  });

  test("end a session at once on both when one instance ends it from the list of sessions", async () => {
    const c = await cluster();
    const password = "correct horse battery staple";
    await runCliAsync(["owners", "set-password", "owner@example.com", "--password-stdin"], {
      db: c.db,
      stdin: password,
    });
    const login = async (p: ServeProcess) => {
      const res = await p.fetch(p.url + "/api/v1/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", origin: p.url },
        body: JSON.stringify({ email: "owner@example.com", password }),
      });
      expect(res.status).toBe(200);
      return res.headers.get("set-cookie")!.split(";")[0]!;
    };
    const [kept, ended] = [await login(c.b), await login(c.a)];
    const me = (p: ServeProcess, cookie: string) => p.fetch(p.url + "/api/v1/auth/me", { headers: { cookie } });
    expect((await me(c.a, ended)).status).toBe(200);
    const res = await c.b.fetch(c.b.url + "/api/v1/auth/sessions", {
      method: "DELETE",
      headers: { cookie: kept, origin: c.b.url },
    });
    expect(await res.json()).toEqual({ ended: 1 });
    expect([(await me(c.a, ended)).status, (await me(c.a, kept)).status]).toEqual([401, 200]);
  });

  test("send each of 20 notifications exactly once, whichever instance took the submission", async () => {
    const smtp: SmtpSink = await startSmtpSink();
    stops.push(() => smtp.close());
    const c = await cluster({ FORMSVC_SMTP_URL: smtp.url });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        c
          .submit(i % 2 ? c.b : c.a, { email: `person${i}@example.com`, message: `hello ${i}` })
          .then((r) => expect(r.status).toBe(200)),
      ),
    );
    await smtp.waitFor(20, 20_000);
    // Both drains run every few seconds: long enough for a second copy to arrive if one were coming.
    await Bun.sleep(6_000);
    const senders = smtp.messages.map((m) => m.replyTo?.value[0]?.address).sort();
    expect(senders).toEqual(Array.from({ length: 20 }, (_, i) => `person${i}@example.com`).sort());
  }, 60_000);

  test("keep every acknowledged submission when one instance is killed with SIGKILL under load", async () => {
    const c = await cluster({ FORMSVC_RATE_LIMIT: "100000" });
    const acknowledged: string[] = [];
    let stop = false;
    const worker = async (p: ServeProcess, w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await c.submit(p, { worker: w, i });
          if (res.status === 200) acknowledged.push(((await res.json()) as { submissionId: string }).submissionId);
        } catch {
          return; // the instance is gone: its connections fail
        }
      }
    };
    const load = [
      ...Array.from({ length: 8 }, (_, w) => worker(c.a, w)),
      ...Array.from({ length: 8 }, (_, w) => worker(c.b, 8 + w)),
    ];
    while (acknowledged.length < 200) await Bun.sleep(10);
    c.a.proc.kill("SIGKILL");
    await c.a.proc.exited;
    const before = acknowledged.length;
    while (acknowledged.length < before + 100) await Bun.sleep(10);
    stop = true;
    await Promise.all(load);
    const pg = new SQL(c.db, { max: 1 });
    try {
      const stored = new Set((await pg.unsafe("SELECT id FROM submissions")).map((r: { id: string }) => r.id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      // The stored counter with the deltas not folded yet: what Get Form answers.
      const [{ count }] = await pg.unsafe(
        "SELECT submission_count + (SELECT CAST(coalesce(sum(submissions), 0) AS INTEGER) FROM form_count_deltas WHERE form_id = $1) AS count FROM forms WHERE id = $1",
        [c.formId],
      );
      expect(count).toBe(stored.size);
    } finally {
      await pg.close();
      await c.stop();
    }
  }, 60_000);

  test("take a load of submits to many forms of several keys from both instances with no deadlock, each acknowledged submission stored and counted once", async () => {
    const c = await cluster({ FORMSVC_RATE_LIMIT: "1000000" });
    const pgAdmin = new SQL((await testPostgres()).adminUrl, { max: 1 });
    const dbName = new URL(c.db).pathname.slice(1);
    const deadlocks = async () =>
      Number(
        (await pgAdmin.unsafe("SELECT deadlocks FROM pg_stat_database WHERE datname = $1", [dbName]))[0].deadlocks,
      );
    // Two owners, each with a key, four contact forms and a waitlist (joiners counted by email).
    const owners = ["owner@example.com", "second@example.com"];
    const targets: { key: string; formId: string; waitlist: boolean }[] = [];
    for (const owner of owners) {
      const key = cliJson<{ key: string }>(["keys", "create", "--owner", owner], { db: c.db }).key;
      for (let i = 0; i < 5; i++) {
        const waitlist = i === 4;
        const args = [
          "forms",
          "create",
          "--owner",
          owner,
          "--name",
          `Form ${i}`,
          "--type",
          waitlist ? "waitlist" : "contact",
        ];
        const form = cliJson<{ id: string }>(waitlist ? [...args, "--users-joined"] : args, { db: c.db });
        targets.push({ key, formId: form.id, waitlist });
      }
    }
    const before = await deadlocks();
    const acknowledged: string[] = [];
    const refused: number[] = [];
    const worker = async (p: ServeProcess, w: number) => {
      for (let i = 0; i < 60; i++) {
        // Each request picks another form: every batch mixes forms of both keys, in no fixed order.
        const t = targets[(w * 7 + i * 3) % targets.length]!;
        const email = `joiner${(w + i) % 13}@example.com`;
        const res = await c.ask(p, "/api/v1/forms/submit", {
          method: "POST",
          key: t.key,
          body: JSON.stringify({ formId: t.formId, data: { email, i } }),
        });
        if (res.status === 200) acknowledged.push(((await res.json()) as { submissionId: string }).submissionId);
        else refused.push(res.status);
      }
    };
    await Promise.all([
      ...Array.from({ length: 12 }, (_, w) => worker(c.a, w)),
      ...Array.from({ length: 12 }, (_, w) => worker(c.b, 12 + w)),
    ]);
    expect(refused).toEqual([]);
    // Read every count through both instances before stopping them: what a client observes.
    const observed: { formId: string; submissionCount: number; usersJoined: number; total: number }[] = [];
    for (const [n, t] of targets.entries()) {
      const p = n % 2 ? c.b : c.a;
      const form = (await (await c.ask(p, `/api/v1/forms/${t.formId}`, { key: t.key })).json()) as {
        submissionCount: number;
      };
      const joined = t.waitlist
        ? (
            (await (await c.ask(p, `/api/v1/forms/${t.formId}/users-joined`, { key: t.key })).json()) as {
              usersJoined: number;
            }
          ).usersJoined
        : 0;
      const analytics = (await (
        await c.ask(p, `/api/v1/forms/${t.formId}/analytics?period=year`, { key: t.key })
      ).json()) as { totalSubmissions: number };
      observed.push({
        formId: t.formId,
        submissionCount: form.submissionCount,
        usersJoined: joined,
        total: analytics.totalSubmissions,
      });
    }
    // A server's backends report their statistics when they end: stop both, then read.
    await c.stop();
    const pg = new SQL(c.db, { max: 1 });
    try {
      const stored = (await pg.unsafe("SELECT id FROM submissions")).map((r: { id: string }) => r.id).sort();
      expect(stored).toEqual([...acknowledged].sort());
      const recount = await pg.unsafe(
        `SELECT f.id AS "formId", CAST(count(s.id) AS INTEGER) AS "submissionCount",
           CAST(CASE WHEN f.form_type = 'waitlist' THEN count(DISTINCT s.email) ELSE 0 END AS INTEGER) AS "usersJoined",
           CAST(count(s.id) AS INTEGER) AS total
         FROM forms f LEFT JOIN submissions s ON s.form_id = f.id AND s.status = 'inbox' GROUP BY f.id, f.form_type`,
      );
      const byId = (rows: { formId: string }[]) => [...rows].sort((x, y) => (x.formId < y.formId ? -1 : 1));
      expect(byId(observed)).toEqual(
        byId([...recount].filter((r: { formId: string }) => targets.some((t) => t.formId === r.formId))),
      );
    } finally {
      await pg.close();
    }
    await Bun.sleep(1200);
    expect((await deadlocks()) - before).toBe(0);
    await pgAdmin.end();
  }, 120_000);

  test("answer every count through either instance as a recount would, while both take submits and after the fold", async () => {
    const c = await cluster({ FORMSVC_RATE_LIMIT: "1000000" });
    const forms = [c.formId];
    for (let i = 0; i < 2; i++)
      forms.push(
        cliJson<{ id: string }>(
          ["forms", "create", "--owner", "owner@example.com", "--name", `Form ${i}`, "--type", "contact"],
          { db: c.db },
        ).id,
      );
    const pg = new SQL(c.db, { max: 2 });
    const read = async (p: ServeProcess, formId: string) => {
      const form = (await (await c.ask(p, `/api/v1/forms/${formId}`)).json()) as { submissionCount: number };
      const analytics = (await (await c.ask(p, `/api/v1/forms/${formId}/analytics?period=year`)).json()) as {
        totalSubmissions: number;
      };
      return { count: form.submissionCount, total: analytics.totalSubmissions };
    };
    const recount = async (formId: string) =>
      Number(
        (await pg.unsafe("SELECT count(*) AS n FROM submissions WHERE form_id = $1 AND status = 'inbox'", [formId]))[0]
          .n,
      );
    try {
      let acknowledged = 0;
      const acknowledgedTo = new Map<string, number>();
      let loading = true;
      const worker = async (p: ServeProcess, w: number) => {
        for (let i = 0; i < 50; i++) {
          const formId = forms[(w + i) % forms.length]!;
          const res = await c.ask(p, "/api/v1/forms/submit", {
            method: "POST",
            body: JSON.stringify({ formId, data: { i } }),
          });
          expect(res.status).toBe(200);
          acknowledged += 1;
          acknowledgedTo.set(formId, (acknowledgedTo.get(formId) ?? 0) + 1);
        }
      };
      // While the load runs: each answer counts at least what was acknowledged before the request (a commit
      // is acknowledged once every instance's caches know of it), and no more than a recount made after it.
      const reader = async () => {
        const seen: { before: number; count: number; total: number; after: number }[] = [];
        for (let n = 0; loading; n++) {
          const formId = forms[n % forms.length]!;
          const before = acknowledgedTo.get(formId) ?? 0;
          const { count, total } = await read(n % 2 ? c.b : c.a, formId);
          seen.push({ before, count, total, after: await recount(formId) });
        }
        return seen;
      };
      const watching = reader();
      await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w % 2 ? c.b : c.a, w)));
      loading = false;
      const seen = await watching;
      expect(seen.length).toBeGreaterThan(3);
      for (const s of seen) {
        expect(s.count).toBeGreaterThanOrEqual(s.before);
        expect(s.count).toBeLessThanOrEqual(s.after);
        expect(s.total).toBeGreaterThanOrEqual(s.before);
        expect(s.total).toBeLessThanOrEqual(s.after);
      }
      expect(acknowledged).toBe(800);
      // Once the load is over, before and after the fold (one job a second, on one instance), every answer is the recount.
      const exact = async () => {
        for (const formId of forms) {
          const n = await recount(formId);
          for (const p of [c.a, c.b])
            expect({ formId, ...(await read(p, formId)) }).toEqual({ formId, count: n, total: n });
        }
      };
      await exact();
      const deadline = Date.now() + 10_000;
      const pending = async () =>
        Number(
          (
            await pg.unsafe(
              "SELECT (SELECT count(*) FROM form_count_deltas) + (SELECT count(*) FROM form_rollup_deltas) AS n",
            )
          )[0].n,
        );
      while ((await pending()) > 0 && Date.now() < deadline) await Bun.sleep(200);
      expect(await pending()).toBe(0);
      const stored = await pg.unsafe(
        "SELECT f.id, f.submission_count AS n, (SELECT count(*) FROM submissions s WHERE s.form_id = f.id AND s.status = 'inbox') AS recount FROM forms f",
      );
      for (const r of stored) expect(Number(r.n)).toBe(Number(r.recount));
      await exact();
    } finally {
      await pg.close();
      await c.stop();
    }
  }, 120_000);
});

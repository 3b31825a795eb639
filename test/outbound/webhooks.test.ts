import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { FormsvcClient } from "../../src/client";
import { createLogger } from "../../src/lib/log";
import { cleanupAfterEach } from "../helpers/fixture";
import {
  cliJson,
  runCliAsync,
  seedKey,
  seedOwner,
  startTestServer,
  tempDir,
  type TestServer,
} from "../helpers/harness";
import { startReceiver, until, type Receiver } from "../helpers/receiver";

const defer = cleanupAfterEach();

// Receivers here are on loopback: these servers allow private addresses (the SSRF tests below do not).
// A tiny retry scale makes the contract's 5 s … 24 h schedule run in about 3 s.
async function server(
  config: Record<string, string | number | boolean> = {},
  opts: { dir?: string; db?: string; lines?: string[] } = {},
): Promise<TestServer> {
  const log = opts.lines ? createLogger("warn", (l) => void opts.lines!.push(l)) : undefined;
  const s = await startTestServer({
    config: { webhookAllowPrivate: true, webhookRetryScale: 0.00001, rateLimit: 10_000, ...config },
    dir: opts.dir,
    db: opts.db,
    log,
  });
  defer(() => s.close());
  return s;
}

function receiver(script?: Receiver["script"]): Receiver {
  const r = startReceiver(script);
  defer(() => r.close());
  return r;
}

const submit = (s: TestServer, o: { key: string; formId: string }, data: Record<string, unknown>) =>
  s.submit(o.key, o.formId, data);

const addHook = (s: TestServer, o: { key: string; formId: string }, url: string, format = "standard") =>
  s.json(`/api/v1/forms/${o.formId}/webhooks`, {
    method: "POST",
    key: o.key,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, format }),
  });

const deliveries = async (s: TestServer, key: string, webhookId: string) =>
  (await s.json(`/api/v1/webhooks/${webhookId}/deliveries`, { key })).body as any[];

/** Verifies a request as a receiver would, with the standardwebhooks library; returns the payload. */
const verify = (secret: string, r: { body: string; headers: Record<string, string> }) =>
  new Webhook(secret).verify(r.body, r.headers) as any;

describe("standard webhooks", () => {
  test("deliver a signed submission.created event that the standardwebhooks library verifies", async () => {
    const rx = receiver();
    const s = await server();
    const o = await seedOwner(s);
    const hook = await addHook(s, o, `${rx.url}/hooks/formsvc`);
    expect(hook.status).toBe(200);
    expect(hook.body).toMatchObject({
      formId: o.formId,
      url: `${rx.url}/hooks/formsvc`,
      format: "standard",
      enabled: true,
    });
    expect(hook.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const sub = await submit(s, o, { email: "Ada@Example.com", message: "Hello <b>there</b>" });
    const [req] = await rx.waitFor(1);
    expect(req!.path).toBe("/hooks/formsvc");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["webhook-id"]).toMatch(/^msg_/);
    expect(req!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const event = verify(hook.body.secret, req!);
    expect(event.type).toBe("submission.created");
    expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The submission exactly as the API lists it, but for the inbox's fields (submission.updated carries those).
    const { state, assignee, tags, noteCount, ...listed } = (
      await s.json(`/api/v1/forms/${o.formId}/submissions`, { key: o.key })
    ).body.submissions[0];
    expect({ state, assignee, tags, noteCount }).toEqual({ state: "new", assignee: null, tags: [], noteCount: 0 });
    expect(event.data).toEqual(listed);
    expect(event.data.id).toBe(sub.body.submissionId);
    // A wrong secret does not verify.
    expect(() => verify(`whsec_${Buffer.from("x".repeat(24)).toString("base64")}`, req!)).toThrow();

    const [d] = await until(
      () => deliveries(s, o.key, hook.body.id),
      (list) => list[0]?.status === "succeeded",
    );
    expect(d).toEqual({
      id: req!.headers["webhook-id"],
      status: "succeeded",
      attempts: 1,
      lastStatus: 200,
      lastError: null,
      createdAt: expect.any(String),
      nextAttemptAt: null,
    });
  });

  test("retry after a 500 with the same webhook-id, and record each attempt", async () => {
    const rx = receiver((_r, n) => (n === 0 ? new Response("database down", { status: 500 }) : new Response("ok")));
    const s = await server();
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, rx.url)).body;
    await submit(s, o, { email: "ann@example.com" });
    const [first, second] = await rx.waitFor(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    expect(verify(hook.secret, first!).type).toBe("submission.created");
    expect(verify(hook.secret, second!).type).toBe("submission.created");

    const [d] = await until(
      () => deliveries(s, o.key, hook.id),
      (list) => list[0]?.status === "succeeded",
    );
    expect([d.attempts, d.lastStatus]).toEqual([2, 200]);
    const row = (await s.query("SELECT id FROM outbox WHERE message_id = ?", d.id))[0];
    const shown = cliJson(["outbox", "show", String(row.id)], { db: s.db });
    expect(shown.attempts.map((a: any) => [a.statusCode, a.error])).toEqual([
      [500, "HTTP 500: database down"],
      [200, null],
    ]);
    expect(shown.attempts.every((a: any) => typeof a.durationMs === "number" && a.at)).toBe(true);
    await Bun.sleep(100);
    expect(rx.requests).toHaveLength(2);
  });

  test("give up after the last retry of the schedule: ten attempts, then failed with the last error", async () => {
    const rx = receiver(() => new Response("nope", { status: 503 }));
    const s = await server();
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, rx.url)).body;
    await submit(s, o, { n: 1 });
    const [d] = await until(
      () => deliveries(s, o.key, hook.id),
      (list) => list[0]?.status === "failed",
      15_000,
    );
    expect(d).toMatchObject({
      status: "failed",
      attempts: 10,
      lastStatus: 503,
      lastError: "HTTP 503: nope",
      nextAttemptAt: null,
    });
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(rx.requests).toHaveLength(10);
  });

  test("a 410 disables the webhook: the delivery fails at once and later submissions are not sent", async () => {
    const rx = receiver(() => new Response("", { status: 410 }));
    const s = await server();
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, rx.url)).body;
    await submit(s, o, { n: 1 });
    const [d] = await until(
      () => deliveries(s, o.key, hook.id),
      (list) => list[0]?.status === "failed",
    );
    expect([d.attempts, d.lastStatus]).toEqual([1, 410]);
    const [listed] = (await s.json(`/api/v1/forms/${o.formId}/webhooks`, { key: o.key })).body;
    expect(listed).toMatchObject({ id: hook.id, enabled: false, disabledReason: expect.stringContaining("410") });
    expect(listed.secret).toBeUndefined();
    await submit(s, o, { n: 2 });
    await Bun.sleep(300);
    expect(rx.requests).toHaveLength(1);
    expect(await deliveries(s, o.key, hook.id)).toHaveLength(1);
    const replay = await s.json(`/api/v1/deliveries/${d.id}/replay`, { method: "POST", key: o.key });
    expect([replay.status, replay.body.code]).toEqual([409, "CONFLICT"]);
  });

  test("a redirect is not followed: the 3xx is a failed attempt", async () => {
    const rx = receiver((r) =>
      r.path === "/hook"
        ? new Response(null, { status: 302, headers: { location: "/elsewhere" } })
        : new Response("ok"),
    );
    const s = await server({ webhookRetryScale: 1 });
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, `${rx.url}/hook`)).body;
    await submit(s, o, { n: 1 });
    const [d] = await until(
      () => deliveries(s, o.key, hook.id),
      (list) => list[0]?.attempts === 1,
    );
    expect(d).toMatchObject({ status: "pending", lastStatus: 302, lastError: expect.stringContaining("redirect") });
    await Bun.sleep(200);
    expect(rx.requests.map((r) => r.path)).toEqual(["/hook"]);
  });

  test("a 429 with Retry-After is waited out before the next attempt", async () => {
    const rx = receiver((_r, n) =>
      n === 0 ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } }) : new Response("ok"),
    );
    const s = await server();
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, rx.url)).body;
    await submit(s, o, { n: 1 });
    const [first, second] = await rx.waitFor(2);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect(
      (
        await until(
          () => deliveries(s, o.key, hook.id),
          (l) => l[0]?.status === "succeeded",
        )
      )[0].attempts,
    ).toBe(2);
  });

  test("replay sends a delivery again with the same webhook-id and body, through the client library", async () => {
    const rx = receiver();
    const s = await server();
    const o = await seedOwner(s);
    const client = new FormsvcClient({ baseUrl: `${s.url}/api/v1`, apiKey: o.key, fetch: s.fetch });
    const hook = await client.createWebhook(o.formId, { url: rx.url });
    expect((await client.listWebhooks(o.formId)).map((w) => w.id)).toEqual([hook.id]);
    await submit(s, o, { email: "ben@example.com" });
    const [first] = await rx.waitFor(1);
    const [d] = await until(
      () => client.listDeliveries(hook.id),
      (l) => l[0]?.status === "succeeded",
    );
    const replayed = await client.replayDelivery(d!.id);
    expect(replayed).toMatchObject({ id: d!.id, status: "pending" });
    const [, again] = await rx.waitFor(2);
    expect(again!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(again!.body).toBe(first!.body);
    expect(verify(hook.secret!, again!).data.data.email).toBe("ben@example.com");
    expect(
      (
        await until(
          () => client.listDeliveries(hook.id),
          (l) => l[0]?.status === "succeeded" && l[0].attempts === 2,
        )
      )[0]!.lastStatus,
    ).toBe(200);
    expect(await client.deleteWebhook(hook.id)).toEqual({ id: hook.id, deleted: true });
    expect(await client.listWebhooks(o.formId)).toEqual([]);
  });
});

describe("Slack and Discord", () => {
  test("get a message in their incoming-webhook format naming the form and its fields, with nothing that pings", async () => {
    const rx = receiver((r) => (r.path === "/discord" ? new Response(null, { status: 204 }) : new Response("ok")));
    const s = await server();
    const o = await seedOwner(s, "owner@example.com", { name: "Contact <site>" });
    const slack = (await addHook(s, o, `${rx.url}/slack`, "slack")).body;
    const discord = (await addHook(s, o, `${rx.url}/discord`, "discord")).body;
    expect([slack.secret, discord.secret]).toEqual([null, null]);
    await submit(s, o, { name: "Ada <!channel>", message: "@everyone look", details: { plan: "pro" } });
    const got = await rx.waitFor(2);
    const bySlack = JSON.parse(got.find((r) => r.path === "/slack")!.body);
    expect(bySlack).toEqual({
      text: '*New submission: Contact &lt;site&gt;*\n*name*: Ada &lt;!channel&gt;\n*message*: @everyone look\n*details*: {"plan":"pro"}',
    });
    const byDiscord = JSON.parse(got.find((r) => r.path === "/discord")!.body);
    expect(byDiscord.content).toBe("New submission: Contact <site>");
    expect(byDiscord.allowed_mentions).toEqual({ parse: [] });
    expect(byDiscord.embeds[0].fields).toEqual([
      { name: "name", value: "Ada <!channel>", inline: false },
      { name: "message", value: "@everyone look", inline: false },
      { name: "details", value: '{"plan":"pro"}', inline: false },
    ]);
    for (const r of got) expect(r.headers["webhook-signature"]).toBeUndefined();
    await until(
      () => s.query("SELECT status FROM outbox WHERE kind = 'webhook'"),
      (rows) => rows.length === 2 && rows.every((x) => x.status === "sent"),
    );
  });
});

describe("what is sent", () => {
  test("spam is never sent; a submission moved out of spam is, once", async () => {
    const rx = receiver();
    const s = await server();
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, rx.url)).body;
    const spam = await submit(s, o, { email: "bot@example.com", _gotcha: "filled" });
    await Bun.sleep(300);
    expect(rx.requests).toHaveLength(0);
    expect(await deliveries(s, o.key, hook.id)).toEqual([]);
    expect(cliJson(["submissions", "not-spam", spam.body.submissionId], { db: s.db }).moved).toBe(true);
    // Queued by the command line, sent by the server's next drain (every 5 s).
    const [req] = await rx.waitFor(1, 15_000);
    expect(verify(hook.secret, req!).data.id).toBe(spam.body.submissionId);
    await Bun.sleep(300);
    expect(rx.requests).toHaveLength(1);
  });

  test("webhooks test sends a signed webhook.test event and records it as a delivery that is not retried", async () => {
    const rx = receiver();
    const s = await server();
    const o = await seedOwner(s);
    const hook = cliJson(["webhooks", "add", o.formId, "--url", `${rx.url}/t`], {
      db: s.db,
      env: { FORMSVC_WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    expect(Object.keys(hook).sort()).toEqual(
      ["createdAt", "disabledReason", "enabled", "format", "formId", "id", "secret", "url"].sort(),
    );
    const res = await runCliAsync(["webhooks", "test", hook.id, "--json"], {
      db: s.db,
      env: { FORMSVC_WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: "succeeded", attempts: 1, lastStatus: 200 });
    expect(verify(hook.secret, rx.requests[0]!)).toMatchObject({
      type: "webhook.test",
      data: { formId: o.formId, webhookId: hook.id },
    });

    rx.script = () => new Response("no", { status: 500 });
    const failed = await runCliAsync(["webhooks", "test", hook.id], {
      db: s.db,
      env: { FORMSVC_WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    expect([failed.code, failed.stderr]).toEqual([1, expect.stringContaining("HTTP 500")]);
    const list = cliJson(["webhooks", "deliveries", hook.id], { db: s.db });
    expect(list.map((d: any) => d.status)).toEqual(["failed", "succeeded"]);
    const { secret: _secret, ...listed } = hook;
    expect(cliJson(["webhooks", "list", o.formId], { db: s.db })).toEqual([listed]);
    expect(cliJson(["webhooks", "remove", hook.id], { db: s.db })).toEqual({ id: hook.id, deleted: true });
    expect(cliJson(["webhooks", "list"], { db: s.db })).toEqual([]);
  });
});

describe("removal", () => {
  test("a webhook removed while its delivery is in flight takes the delivery with it; the others' attempts are still recorded", async () => {
    const rx = receiver(async () => {
      await Bun.sleep(300);
      return new Response("ok");
    });
    const s = await server();
    const o = await seedOwner(s);
    const gone = (await addHook(s, o, `${rx.url}/gone`)).body;
    const kept = (await addHook(s, o, `${rx.url}/kept`)).body;
    await submit(s, o, { n: 1 });
    await rx.waitFor(2);
    expect((await s.json(`/api/v1/webhooks/${gone.id}`, { method: "DELETE", key: o.key })).status).toBe(200);
    const [d] = await until(
      () => deliveries(s, o.key, kept.id),
      (l) => l[0]?.status === "succeeded",
    );
    expect(d.attempts).toBe(1);
    expect((await s.query("SELECT count(*) AS n FROM outbox WHERE webhook_id = ?", gone.id))[0].n).toBe(0);
    expect((await s.query("SELECT count(*) AS n FROM outbox WHERE status = 'sending'"))[0].n).toBe(0);
  });
});

describe("restarts", () => {
  test("a delivery pending at a stop is sent exactly once by the next server on the same database", async () => {
    const { dir, cleanup } = tempDir();
    defer(cleanup);
    const rx = receiver((_r, n) => (n === 0 ? new Response("", { status: 500 }) : new Response("ok")));
    // First retry after about a second: the first server is stopped before it.
    const first = await startTestServer({ dir, config: { webhookAllowPrivate: true, webhookRetryScale: 0.2 } });
    const o = await seedOwner(first);
    const hook = (await addHook(first, o, rx.url)).body;
    await submit(first, o, { n: 1 });
    await until(
      () => first.query("SELECT attempts, status FROM outbox"),
      (rows) => rows[0]?.attempts === 1,
    );
    await first.close();
    expect(rx.requests).toHaveLength(1);

    const second = await server({ webhookRetryScale: 0.2 }, { dir, db: first.db });
    await rx.waitFor(2);
    await until(
      () => deliveries(second, o.key, hook.id),
      (l) => l[0]?.status === "succeeded",
    );
    await Bun.sleep(1500);
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.headers["webhook-id"]).toBe(rx.requests[0]!.headers["webhook-id"]);
  });

  test("a delivery in flight at a stop is finished and marked before the server exits, and not sent again", async () => {
    const { dir, cleanup } = tempDir();
    defer(cleanup);
    const rx = receiver(async () => {
      await Bun.sleep(400);
      return new Response("ok");
    });
    const first = await startTestServer({ dir, config: { webhookAllowPrivate: true } });
    const o = await seedOwner(first);
    await addHook(first, o, rx.url);
    await submit(first, o, { n: 1 });
    await rx.waitFor(1);
    await first.close();
    const second = await server({}, { dir, db: first.db });
    await Bun.sleep(500);
    expect(rx.requests).toHaveLength(1);
    expect(await second.query("SELECT status, attempts FROM outbox")).toEqual([{ status: "sent", attempts: 1 }]);
  });
});

describe("operators see failures", () => {
  test("/metrics counts deliveries by transport and outcome, /healthz shows the backlog, the log has one line per failed attempt without secrets or payload, even one the receiver echoes back", async () => {
    // The receiver's error page quotes what it was sent: the owner may read it in the deliveries, the log must not carry it.
    const rx = receiver((r, n) => (n === 0 ? new Response(`rejected ${r.body}`, { status: 500 }) : new Response("ok")));
    const lines: string[] = [];
    const s = await server({}, { lines });
    const o = await seedOwner(s);
    const hook = (await addHook(s, o, `${rx.url}/secret-path-token`)).body;
    await submit(s, o, { email: "private@example.com", message: "the payload" });
    await until(
      () => deliveries(s, o.key, hook.id),
      (l) => l[0]?.status === "succeeded",
    );
    const metrics = await (await s.request("/metrics")).text();
    expect(metrics).toContain('formsvc_deliveries_total{transport="http",kind="webhook",outcome="retry"} 1');
    expect(metrics).toContain('formsvc_deliveries_total{transport="http",kind="webhook",outcome="sent"} 1');
    expect(metrics).toContain('formsvc_outbox_pending_by_kind{kind="webhook"} 0');
    const health = (await s.json("/healthz")).body;
    expect(health.outbox).toEqual({ pending: 0, failed: 0 });
    expect(health.backlog.byKind.webhook).toEqual({ pending: 0, failed: 0 });

    const failures = lines.filter((l) => l.includes("delivery attempt failed"));
    expect(failures).toHaveLength(1);
    expect(JSON.parse(failures[0]!)).toMatchObject({
      level: "warn",
      kind: "webhook",
      transport: "http",
      webhookId: hook.id,
      attempt: 1,
      status: 500,
      error: "HTTP 500",
    });
    const all = lines.join("\n");
    for (const secret of ["secret-path-token", hook.secret, "private@example.com", "the payload"])
      expect(all).not.toContain(secret);
    expect((await s.query<{ last_error: string }>("SELECT last_error FROM outbox"))[0]!.last_error).toBeNull();
    expect(
      (await s.query<{ error: string }>("SELECT error FROM outbox_attempts WHERE error IS NOT NULL"))[0]!.error,
    ).toContain('rejected {"type":"submission.created"');
  });
});

describe("the webhook endpoints", () => {
  test("need a secret key of the form's owner: 401, 404, 403 and KEY_SCOPE", async () => {
    const rx = receiver();
    const s = await server();
    const o = await seedOwner(s);
    const other = await seedOwner(s, "other@example.com");
    const publishable = (await seedKey(s, "owner@example.com", { publishable: true })).key;
    const hook = (await addHook(s, o, rx.url)).body;
    expect((await s.json(`/api/v1/forms/${o.formId}/webhooks`)).status).toBe(401);
    expect((await s.json(`/api/v1/forms/frm_nope/webhooks`, { key: o.key })).status).toBe(404);
    expect((await s.json(`/api/v1/forms/${o.formId}/webhooks`, { key: other.key })).status).toBe(403);
    expect((await s.json(`/api/v1/forms/${o.formId}/webhooks`, { key: publishable })).body.code).toBe("KEY_SCOPE");
    expect((await s.json(`/api/v1/webhooks/${hook.id}/deliveries`, { key: other.key })).status).toBe(403);
    expect((await s.json(`/api/v1/webhooks/whk_nope/deliveries`, { key: o.key })).status).toBe(404);
    expect((await s.json(`/api/v1/webhooks/${hook.id}`, { method: "DELETE", key: other.key })).status).toBe(403);
    expect((await s.json(`/api/v1/deliveries/msg_nope/replay`, { method: "POST", key: o.key })).status).toBe(404);
    const bad = await addHook(s, o, rx.url, "teams");
    expect(bad.status).toBe(400);
    expect((await addHook(s, o, "ftp://example.com/x")).body.error).toContain("http");
    expect((await addHook(s, o, "not a url")).status).toBe(400);
    expect((await s.json(`/api/v1/webhooks/${hook.id}`, { method: "DELETE", key: o.key })).body).toEqual({
      id: hook.id,
      deleted: true,
    });
  });
});

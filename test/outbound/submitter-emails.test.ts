import { describe, expect, test } from "bun:test";
import { fixedClock } from "../../src/lib/clock";
import { createLogger } from "../../src/lib/log";
import { cleanupAfterEach } from "../helpers/fixture";
import { cliJson, runCli, seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { until } from "../helpers/receiver";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";

const defer = cleanupAfterEach();

async function sink(): Promise<SmtpSink> {
  const s = await startSmtpSink();
  defer(() => s.close());
  return s;
}

async function server(
  config: Record<string, string | number | boolean>,
  clock?: ReturnType<typeof fixedClock>,
): Promise<TestServer> {
  const s = await startTestServer({ config: { rateLimit: 10_000, ...config }, clock });
  defer(() => s.close());
  return s;
}

const submit = (s: TestServer, o: { key: string; formId: string }, data: Record<string, unknown>) =>
  s.submit(o.key, o.formId, data);

const to = (m: { to?: unknown }) => (m.to as { text: string }).text;

describe("autoresponses", () => {
  const autoresponse = {
    enabled: true,
    subject: "Thanks, {{name}}!",
    text: "Hello {{name}},\nwe got: {{message}}\n{{{message}}} {{&message}}",
  };

  test("send the submitter one message with the placeholders filled, escaped in the HTML part, Auto-Submitted and Reply-To the owner", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url });
    const o = await seedOwner(s, "owner@example.com", { name: "Contact", emailEnabled: true, autoresponse });
    expect(
      (await submit(s, o, { name: "Ada <b>", email: " Ada@Example.com ", message: "<script>x</script> & more" }))
        .status,
    ).toBe(200);
    const [mail] = await smtp.waitFor(1);
    expect(to(mail!)).toBe("ada@example.com");
    expect(mail!.subject).toBe("Thanks, Ada <b>!");
    expect(mail!.headers.get("auto-submitted")).toBe("auto-replied");
    expect(mail!.replyTo?.value[0]?.address).toBe("owner@example.com");
    expect(mail!.text).toContain("Hello Ada <b>,\nwe got: <script>x</script> & more");
    expect(mail!.html).toContain(
      "Hello Ada &lt;b&gt;,\nwe got: &lt;script&gt;x&lt;/script&gt; &amp; more\n&lt;script&gt;x&lt;/script&gt; &amp; more &lt;script&gt;",
    );
    expect(mail!.html).not.toContain("<script>");
    // Marked sent a moment after the SMTP server took it (attempts are recorded in groups).
    await until(
      () => s.query("SELECT kind, status FROM outbox"),
      (rows) => rows.length === 1 && rows[0].kind === "autoresponse" && rows[0].status === "sent",
    );
  });

  test("go to one address at most once per form per hour, counted across batches and forms apart", async () => {
    const smtp = await sink();
    const clock = fixedClock("2026-11-20T10:00:00.000Z");
    const s = await server({ smtpUrl: smtp.url }, clock);
    const o = await seedOwner(s, "owner@example.com", { name: "A", emailEnabled: true, autoresponse });
    const other = await seedOwner(s, "owner@example.com", { name: "B", emailEnabled: true, autoresponse });
    // Four at once share one batch; then later ones.
    await Promise.all([1, 2, 3, 4].map((n) => submit(s, o, { email: "same@example.com", name: `n${n}` })));
    await submit(s, o, { email: "SAME@example.com" });
    await submit(s, other, { email: "same@example.com" });
    await submit(s, o, { email: "someone-else@example.com" });
    clock.advance(59 * 60 * 1000);
    await submit(s, o, { email: "same@example.com" });
    clock.advance(2 * 60 * 1000);
    await submit(s, o, { email: "same@example.com" });
    await smtp.waitFor(4);
    await Bun.sleep(300);
    expect(smtp.messages.map(to).sort()).toEqual([
      "same@example.com",
      "same@example.com",
      "same@example.com",
      "someone-else@example.com",
    ]);
    expect((await s.query("SELECT count(*) AS n FROM outbox WHERE kind = 'autoresponse'"))[0].n).toBe(4);
  });

  test("are not sent for spam, without an extracted address, or with the form's email switch off", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url });
    const on = await seedOwner(s, "owner@example.com", { name: "On", emailEnabled: true, autoresponse });
    const off = await seedOwner(s, "owner@example.com", { name: "Off", emailEnabled: false, autoresponse });
    await submit(s, on, { email: "bot@example.com", _gotcha: "x" });
    await submit(s, on, { message: "no address" });
    await submit(s, off, { email: "muted@example.com" });
    await submit(s, on, { email: "ok@example.com" });
    await smtp.waitFor(1);
    await Bun.sleep(300);
    expect(smtp.messages.map(to)).toEqual(["ok@example.com"]);
  });

  test("are set with forms update flags and shown by forms show --json; bad templates and half settings are refused", async () => {
    const s = await server({});
    const o = await seedOwner(s, "owner@example.com", { name: "Contact" });
    const db = { db: s.db };
    const updated = cliJson(
      [
        "forms",
        "update",
        o.formId,
        "--email-notifications",
        "--autoresponse-subject",
        "Thanks {{name}}",
        "--autoresponse-text",
        "We will answer soon.",
      ],
      db,
    );
    expect(updated.autoresponse).toEqual({ enabled: true, subject: "Thanks {{name}}", text: "We will answer soon." });
    expect(cliJson(["forms", "show", o.formId], db).autoresponse.enabled).toBe(true);
    expect(cliJson(["forms", "update", o.formId, "--no-autoresponse"], db).autoresponse).toEqual({
      enabled: false,
      subject: "Thanks {{name}}",
      text: "We will answer soon.",
    });
    expect((await s.json(`/api/v1/forms/${o.formId}`, { key: o.key })).body.autoresponse.enabled).toBe(false);
    expect(cliJson(["forms", "update", o.formId, "--autoresponse"], db).autoresponse.enabled).toBe(true);
    const broken = runCli(["forms", "update", o.formId, "--autoresponse-text", "Hi {{#name}}"], db);
    expect([broken.code, broken.stderr]).toEqual([1, expect.stringContaining("not a valid template")]);
    const other = await seedOwner(s, "owner@example.com", { name: "Half" });
    const half = runCli(["forms", "update", other.formId, "--autoresponse-subject", "Hi"], db);
    expect([half.code, half.stderr]).toEqual([1, expect.stringContaining("needs a subject and a text")]);
  });
});

describe("waitlist double opt-in", () => {
  const PUBLIC = "https://forms.example.com/base";
  const waitlist = { name: "Launch <beta>", formType: "waitlist", usersJoinedEnabled: true, doubleOptIn: true };
  const joined = async (s: TestServer, o: { key: string; formId: string }) =>
    (await s.json(`/api/v1/forms/${o.formId}/users-joined`, { key: o.key })).body.usersJoined;
  const linkOf = (text: string) => /https:\/\/forms\.example\.com\/base\/confirm\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
  const open = (s: TestServer, token: string) => fetch(`${s.url}/confirm/${token}`, { redirect: "manual" });
  /** users_joined_count equal to a recount from the tables (confirmed joiners still in the inbox). */
  const recount = async (s: TestServer, formId: string) =>
    (
      await s.query(
        `SELECT (SELECT users_joined_count FROM forms WHERE id = ?1) AS stored,
        (SELECT count(*) FROM (SELECT DISTINCT email FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND email IS NOT NULL) j
          JOIN waitlist_confirmations c ON c.form_id = ?1 AND c.email = j.email AND c.confirmed_at IS NOT NULL) AS recount`,
        formId,
      )
    )[0];

  test("count a joiner only once they open their link; the link works once, again it changes nothing, a made-up one is a 404 page", async () => {
    const smtp = await sink();
    // Confirmation emails go out whatever the form's email switch says (it is off here).
    const s = await server({ smtpUrl: smtp.url, publicUrl: PUBLIC });
    const o = await seedOwner(s, "owner@example.com", waitlist);
    await submit(s, o, { email: "Ada@Example.com", name: "Ada" });
    await submit(s, o, { name: "no address" });
    const [mail] = await smtp.waitFor(1);
    expect([to(mail!), mail!.subject]).toEqual(["ada@example.com", "Confirm your place on Launch <beta>"]);
    expect(mail!.headers.get("auto-submitted")).toBe("auto-generated");
    const token = linkOf(mail!.text!);
    expect(mail!.html).toContain(`href="${PUBLIC}/confirm/${token}"`);
    expect(await joined(s, o)).toBe(0);
    expect((await s.json(`/api/v1/forms/${o.formId}`, { key: o.key })).body.usersJoinedSettings.count).toBe(0);
    // Only the token's hash is kept: not in the confirmations, and no longer in the sent email's row.
    await until(
      () => s.query("SELECT status, payload FROM outbox WHERE kind = 'confirmation'"),
      (r) => r[0]?.status === "sent",
    );
    expect((await s.query("SELECT payload FROM outbox WHERE kind = 'confirmation'"))[0].payload).toBeNull();
    expect(JSON.stringify(await s.query("SELECT * FROM waitlist_confirmations"))).not.toContain(token);

    const first = await open(s, token);
    expect([first.status, first.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const page = await first.text();
    expect(page).toContain("confirmed");
    expect(page).toContain("Launch &lt;beta&gt;");
    expect(page).not.toMatch(/<script|https?:\/\//);
    expect(await joined(s, o)).toBe(1);
    const again = await open(s, token);
    expect([again.status, await again.text()]).toEqual([200, expect.stringContaining("Already confirmed")]);
    expect(await joined(s, o)).toBe(1);

    // The same address again: no second email, no second count.
    await submit(s, o, { email: "ada@example.com" });
    await Bun.sleep(300);
    expect(smtp.messages).toHaveLength(1);
    expect(await joined(s, o)).toBe(1);

    for (const made of ["A".repeat(43), "nope", "x".repeat(500)]) {
      const res = await open(s, made);
      expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([
        404,
        "text/html; charset=utf-8",
        expect.stringContaining("Link not found"),
      ]);
    }
    expect(await recount(s, o.formId)).toEqual({ stored: 1, recount: 1 });
  });

  test("a HEAD of the link (a mail scanner) changes nothing; the GET confirms, as Wave 2 says", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url, publicUrl: PUBLIC });
    const o = await seedOwner(s, "owner@example.com", waitlist);
    await submit(s, o, { email: "ada@example.com" });
    const [mail] = await smtp.waitFor(1);
    const token = linkOf(mail!.text!);
    const head = await fetch(`${s.url}/confirm/${token}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await joined(s, o)).toBe(0);
    expect((await s.query("SELECT confirmed_at FROM waitlist_confirmations"))[0].confirmed_at).toBeNull();
    expect((await open(s, token)).status).toBe(200);
    expect(await joined(s, o)).toBe(1);
  });

  test("send a confirmed joiner to the form's confirmRedirectUrl", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url, publicUrl: PUBLIC });
    const o = await seedOwner(s, "owner@example.com", {
      ...waitlist,
      confirmRedirectUrl: "https://www.example.com/welcome?from=formsvc",
    });
    await submit(s, o, { email: "ben@example.com" });
    const token = linkOf((await smtp.waitFor(1))[0]!.text!);
    for (let i = 0; i < 2; i++) {
      const res = await open(s, token);
      expect([res.status, res.headers.get("location")]).toEqual([303, "https://www.example.com/welcome?from=formsvc"]);
    }
    expect(await joined(s, o)).toBe(1);
  });

  test("keep the count equal to a recount through spam moves, a second submission and switching double opt-in off and on", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url, publicUrl: PUBLIC });
    const o = await seedOwner(s, "owner@example.com", waitlist);
    const a = await submit(s, o, { email: "ann@example.com" });
    await submit(s, o, { email: "cat@example.com" });
    await smtp.waitFor(2);
    const ann = smtp.messages.find((m) => to(m) === "ann@example.com")!;
    await open(s, linkOf(ann.text!));
    expect(await recount(s, o.formId)).toEqual({ stored: 1, recount: 1 });
    const db = { db: s.db };
    cliJson(["submissions", "spam", a.body.submissionId], db);
    expect(await recount(s, o.formId)).toEqual({ stored: 0, recount: 0 });
    cliJson(["submissions", "not-spam", a.body.submissionId], db);
    expect(await recount(s, o.formId)).toEqual({ stored: 1, recount: 1 });
    expect(await joined(s, o)).toBe(1);
    // Moved back in, a confirmed address is not asked again.
    await Bun.sleep(300);
    expect((await s.query("SELECT count(*) AS n FROM outbox WHERE kind = 'confirmation'"))[0].n).toBe(2);

    // Off: every distinct joiner counts (ann, cat); on again: the confirmed one only.
    expect(cliJson(["forms", "update", o.formId, "--no-double-opt-in"], db).usersJoinedSettings.count).toBe(2);
    expect(cliJson(["forms", "update", o.formId, "--double-opt-in"], db).usersJoinedSettings.count).toBe(1);
    const refused = runCli(
      ["forms", "update", (await seedOwner(s, "owner@example.com", { name: "Contact" })).formId, "--double-opt-in"],
      db,
    );
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("double opt-in is for waitlist forms")]);
  });

  test("a link expires after 7 days: a 404 page, and the address may sign up again for a new one", async () => {
    const smtp = await sink();
    const clock = fixedClock("2026-11-01T10:00:00.000Z");
    const s = await server({ smtpUrl: smtp.url, publicUrl: PUBLIC }, clock);
    const o = await seedOwner(s, "owner@example.com", waitlist);
    await submit(s, o, { email: "dan@example.com" });
    const old = linkOf((await smtp.waitFor(1))[0]!.text!);
    clock.advance(7 * 24 * 60 * 60 * 1000 + 1000);
    expect((await open(s, old)).status).toBe(404);
    await submit(s, o, { email: "dan@example.com" });
    const fresh = linkOf((await smtp.waitFor(2))[1]!.text!);
    expect(fresh).not.toBe(old);
    expect((await open(s, fresh)).status).toBe(200);
    expect(await joined(s, o)).toBe(1);
  });

  test("without FORMSVC_PUBLIC_URL, confirmation emails wait in the outbox (and /healthz shows them)", async () => {
    const smtp = await sink();
    const s = await server({ smtpUrl: smtp.url });
    const o = await seedOwner(s, "owner@example.com", waitlist);
    await submit(s, o, { email: "eve@example.com" });
    await Bun.sleep(300);
    expect(smtp.messages).toHaveLength(0);
    expect(await s.query("SELECT kind, status, attempts FROM outbox")).toEqual([
      { kind: "confirmation", status: "pending", attempts: 0 },
    ]);
    expect((await s.json("/healthz")).body.backlog.byKind.confirmation).toEqual({ pending: 1, failed: 0 });
  });
});

describe("FORMSVC_PUBLIC_URL", () => {
  test("is shown by formsvc config and must be an http(s) URL without a query", () => {
    const ok = runCli(["config", "--json"], {
      env: { FORMSVC_PUBLIC_URL: "https://forms.example.com/", FORMSVC_DB: ":memory:" },
    });
    expect(JSON.parse(ok.stdout).find((s: any) => s.env === "FORMSVC_PUBLIC_URL").value).toBe(
      "https://forms.example.com",
    );
    for (const bad of ["forms.example.com", "ftp://forms.example.com", "https://forms.example.com/?a=1"]) {
      const res = runCli(["config"], { env: { FORMSVC_PUBLIC_URL: bad, FORMSVC_DB: ":memory:" } });
      expect([res.code, res.stderr]).toEqual([2, expect.stringContaining("FORMSVC_PUBLIC_URL")]);
    }
  });
});

describe("the log", () => {
  test("carries no submitter's address or field values when the SMTP server refuses the recipient, while the outbox keeps the server's reply for the operator", async () => {
    const smtp = await sink();
    smtp.refuse = true;
    const lines: string[] = [];
    const s = await startTestServer({
      config: { rateLimit: 10_000, smtpUrl: smtp.url, mailRetryBaseSeconds: 30 },
      log: createLogger("debug", (l) => void lines.push(l)),
    });
    defer(() => s.close());
    const o = await seedOwner(s, "owner@example.com", {
      emailEnabled: true,
      autoresponse: { enabled: true, subject: "Thanks", text: "We got {{message}}" },
    });
    expect((await submit(s, o, { email: "ada.lovelace@example.com", message: "my secret plan" })).status).toBe(200);
    const failed = await until(
      () => s.query<{ last_error: string | null }>("SELECT last_error FROM outbox WHERE kind = 'autoresponse'"),
      (r) => r[0]?.last_error != null,
    );
    // What is stored for the operator keeps the reply as the server gave it.
    expect(failed[0]!.last_error).toContain("<ada.lovelace@example.com>: Recipient address rejected");
    // The line is written once the attempt is recorded.
    const logged = await until(
      () => lines.filter((l) => l.includes("delivery attempt failed")),
      (l) => l.length > 0,
    );
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({
      kind: "autoresponse",
      status: 550,
      error: expect.stringContaining("<[address]>: Recipient address rejected"),
    });
    const all = lines.join("\n");
    for (const secret of ["ada.lovelace", "my secret plan"]) expect(all).not.toContain(secret);
  });
});

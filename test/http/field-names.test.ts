import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readableName } from "../../src/lib/field-label";
import { parseCsv } from "../helpers/csv";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startReceiver, type Receiver } from "../helpers/receiver";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { OPERATOR } from "../../src/lib/principal";

// Names a plain object already answers to (Object.prototype's members), and the one that sets its prototype.
const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"] as const;

let server: TestServer;
let smtp: SmtpSink;
let receiver: Receiver;
let owner: Awaited<ReturnType<typeof seedOwner>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  receiver = startReceiver();
  server = await startTestServer({ config: { rateLimit: 100_000, smtpUrl: smtp.url, webhookAllowPrivate: true } });
  owner = await seedOwner(server, "owner@example.com", {
    name: "Names",
    emailEnabled: true,
    developerNotifications: true,
    autoresponse: {
      enabled: true,
      subject: "Thanks",
      text: "c={{constructor}} p={{__proto__}} t={{toString}} h={{hasOwnProperty}}",
    },
  });
  await server.services.webhooks.addWebhook(OPERATOR, owner.formId, { url: `${receiver.url}/hook` });
});
afterAll(async () => {
  await server.close();
  await smtp.close();
  receiver.close();
});

/** A multipart body written by hand, so that names FormData would not send (empty, missing) can be. */
const multipart = (parts: { disposition: string; value: string }[]) => {
  const boundary = "formsvc-test-boundary";
  const body =
    parts.map((p) => `--${boundary}\r\nContent-Disposition: ${p.disposition}\r\n\r\n${p.value}\r\n`).join("") +
    `--${boundary}--\r\n`;
  return { body, type: `multipart/form-data; boundary=${boundary}` };
};

const BODY_TYPES = {
  json: (fields: [string, string][]) => ({
    body: `{"formId":${JSON.stringify(owner.formId)},"data":{${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}}`,
    type: "application/json",
  }),
  urlencoded: (fields: [string, string][]) => ({
    body: new URLSearchParams([["formId", owner.formId], ...fields]).toString(),
    type: "application/x-www-form-urlencoded",
  }),
  multipart: (fields: [string, string][]) =>
    multipart(
      [["formId", owner.formId], ...fields].map(([k, v]) => ({ disposition: `form-data; name="${k}"`, value: v! })),
    ),
};

const post = ({ body, type }: { body: string; type: string }) =>
  server.request("/api/v1/forms/submit", { method: "POST", key: owner.key, headers: { "content-type": type }, body });

const count = async () => (await server.query<{ n: number }>("SELECT count(*) AS n FROM submissions"))[0]!.n;

describe("field names that are Object.prototype members", () => {
  test("are stored and read back like any other name, on every body type, through the list, both exports, the notification, the autoresponse and the webhook", async () => {
    const sent = new Map<string, Record<string, string>>();
    for (const [type, make] of Object.entries(BODY_TYPES)) {
      const fields: [string, string][] = [
        ...NAMES.map((n) => [n, `${n}-${type}`] as [string, string]),
        ["email", `${type}@example.com`],
      ];
      const res = await post(make(fields));
      expect([type, res.status]).toEqual([type, 200]);
      sent.set((await res.json()).submissionId, Object.fromEntries(fields));
    }
    // A submission without them: its cells and placeholders are empty, not Object.prototype's functions.
    const plain = (
      await (
        await post(
          BODY_TYPES.json([
            ["message", "plain"],
            ["email", "plain@example.com"],
          ]),
        )
      ).json()
    ).submissionId;
    sent.set(plain, { message: "plain", email: "plain@example.com" });

    const own = (data: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(data).filter(([k]) => k !== "_meta"));
    const listed = (await server.json(`/api/v1/forms/${owner.formId}/submissions`, { key: owner.key })).body
      .submissions;
    const exported = await (
      await server.request(`/api/v1/forms/${owner.formId}/submissions/export?format=json`, { key: owner.key })
    ).json();
    for (const items of [listed, exported]) {
      expect(new Map(items.map((s: any) => [s.id, own(s.data)]))).toEqual(sent);
    }
    // What is stored: each name once, as its own key.
    for (const [id, fields] of sent) {
      const stored = (
        await server.query<{ data: string; email: string }>("SELECT data, email FROM submissions WHERE id = ?", id)
      )[0]!;
      expect([Object.keys(JSON.parse(stored.data)).filter((k) => k !== "_meta"), stored.email]).toEqual([
        Object.keys(fields),
        fields.email!,
      ]);
    }

    const [header, ...rows] = parseCsv(
      await (
        await server.request(`/api/v1/forms/${owner.formId}/submissions/export?format=csv`, { key: owner.key })
      ).text(),
    );
    for (const row of rows) {
      const fields = sent.get(row[0]!)!;
      for (const name of [...NAMES, "message"])
        expect([row[0], name, row[header!.indexOf(name)]]).toEqual([
          row[0],
          name,
          Object.hasOwn(fields, name) ? fields[name] : "",
        ]);
    }

    const mails = await smtp.waitFor(8);
    const to = (m: (typeof mails)[number]) => (m.to && "text" in m.to ? m.to.text : "");
    for (const type of Object.keys(BODY_TYPES)) {
      const notification = mails.find(
        (m) => to(m) === "owner@example.com" && m.replyTo?.text === `${type}@example.com`,
      )!;
      // The email shows each name made readable ("__proto__" as "Proto"); the value is the field's own.
      for (const name of NAMES) expect(notification.text).toContain(`${readableName(name)}: ${name}-${type}`);
      expect(mails.find((m) => to(m) === `${type}@example.com`)!.text?.trim()).toBe(
        `c=constructor-${type} p=__proto__-${type} t=toString-${type} h=hasOwnProperty-${type}`,
      );
    }
    expect(mails.find((m) => to(m) === "plain@example.com")!.text?.trim()).toBe("c= p= t= h=");

    const hooks = await receiver.waitFor(4);
    const delivered = new Map(hooks.map((h) => JSON.parse(h.body).data).map((d: any) => [d.id, own(d.data)]));
    expect(delivered).toEqual(sent);
  });
});

describe("a field with an empty name", () => {
  test("is a 400 on every body type, and nothing is stored", async () => {
    const cases: [string, { body: string; type: string }][] = [
      [
        "json",
        BODY_TYPES.json([
          ["", "x"],
          ["message", "hi"],
        ]),
      ],
      [
        "urlencoded",
        BODY_TYPES.urlencoded([
          ["", "x"],
          ["message", "hi"],
        ]),
      ],
      [
        "multipart, empty name",
        BODY_TYPES.multipart([
          ["", "x"],
          ["message", "hi"],
        ]),
      ],
      [
        "multipart, no name",
        multipart([
          { disposition: 'form-data; name="formId"', value: owner.formId },
          { disposition: "form-data", value: "x" },
        ]),
      ],
      [
        "multipart, unquoted empty name",
        multipart([
          { disposition: 'form-data; name="formId"', value: owner.formId },
          { disposition: "form-data; name=", value: "x" },
        ]),
      ],
    ];
    const before = await count();
    for (const [what, body] of cases) {
      const res = await post(body);
      expect([what, res.status, (await res.json()).error]).toEqual([what, 400, expect.stringContaining("empty name")]);
    }
    expect(await count()).toBe(before);
    // A value that only looks like such a part (inside a field) is data.
    const lookalike = BODY_TYPES.multipart([["message", 'Content-Disposition: form-data; name=""']]);
    expect((await post(lookalike)).status).toBe(200);
  });
});

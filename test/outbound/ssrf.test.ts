import { describe, expect, test } from "bun:test";
import type { LookupAddress } from "node:dns";
import { checkedLookup, internalRange, InternalAddressError } from "../../src/lib/public-address";
import { createHttpSender } from "../../src/modules/outbox/http-sender";
import { cleanupAfterEach } from "../helpers/fixture";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";
import { startReceiver, until, type Receiver } from "../helpers/receiver";

const defer = cleanupAfterEach();

function receiver(): Receiver {
  const r = startReceiver();
  defer(() => r.close());
  return r;
}

// No test here sends anything to an address outside loopback: internal and public addresses are only classified.
describe("address classification", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.10", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:7f00:1", "loopback"],
    ["64:ff9b::a00:1", "rfc6052"],
    ["2002:a00:1::", "6to4"],
    ["2001:db8::1", "reserved"],
    // Every IPv6 form that embeds an IPv4 address: judged by it (mapped) or refused whatever it carries.
    ["::127.0.0.1", "ipv4Compatible"],
    ["::7f00:1", "ipv4Compatible"],
    ["::a00:1", "ipv4Compatible"],
    ["::8.8.8.8", "ipv4Compatible"],
    ["::ffff:0:127.0.0.1", "rfc6145"],
    ["::ffff:0:808:808", "rfc6145"],
    ["64:ff9b::8.8.8.8", "rfc6052"],
    ["64:ff9b:1::a00:1", "rfc6052"],
    ["2002:808:808::1", "6to4"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "teredo"],
    // IPv4 as inet_aton reads it, as the URL parser and resolvers do.
    ["2130706433", "loopback"],
    ["0x7f.1", "loopback"],
    ["017700000001", "loopback"],
    ["012.1", "private"],
    ["::1.2.3.256", "unparseable"],
  ])("refuses %s (%s)", (address, range) => {
    expect(internalRange(address)).toBe(range);
  });

  test.each(["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"])(
    "lets the public address %s through",
    (address) => {
      expect(internalRange(address)).toBeNull();
    },
  );
});

describe("the checked lookup", () => {
  const lookup = (resolve: (h: string) => Promise<LookupAddress[]>, all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((done) =>
      checkedLookup(resolve)("hooks.test", { all }, (error, address) => done({ error, result: address })),
    );

  test("refuses a name when any of its addresses is internal, public ones beside it or not", async () => {
    const mixed = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ];
    const { error } = await lookup(mixed, true);
    expect(error).toBeInstanceOf(InternalAddressError);
    expect(error!.message).toContain("hooks.test resolves to 10.0.0.7, a private address");
    expect((await lookup(async () => [{ address: "::ffff:169.254.169.254", family: 6 }], false)).error).toBeInstanceOf(
      InternalAddressError,
    );
  });

  test("hands the socket exactly the addresses it checked, from one resolution: a rebinding name cannot switch between check and connect", async () => {
    let calls = 0;
    // Public on the first answer, loopback on every later one.
    const rebinding = async () =>
      calls++ === 0 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
    expect(await lookup(rebinding, true)).toEqual({ error: null, result: [{ address: "93.184.216.34", family: 4 }] });
    expect(calls).toBe(1);
    expect((await lookup(rebinding, false)).error).toBeInstanceOf(InternalAddressError);
  });

  test("the HTTP sender refuses a name that resolves to loopback before it connects", async () => {
    const rx = receiver();
    const port = new URL(rx.url).port;
    const sender = createHttpSender({
      timeoutMs: 2000,
      allowPrivate: false,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    expect(sender.post({ url: `http://hooks.test:${port}/x`, headers: {}, body: "{}" })).rejects.toThrow(
      "hooks.test resolves to 127.0.0.1, a loopback address",
    );
    expect(sender.post({ url: `http://[::ffff:127.0.0.1]:${port}/x`, headers: {}, body: "{}" })).rejects.toThrow(
      "loopback",
    );
    expect(sender.post({ url: `ftp://127.0.0.1:${port}/x`, headers: {}, body: "{}" })).rejects.toThrow(
      "only http and https",
    );
    await Bun.sleep(100);
    expect(rx.requests).toHaveLength(0);
  });
});

describe("webhooks without FORMSVC_WEBHOOK_ALLOW_PRIVATE", () => {
  let s: TestServer;
  const start = async () => {
    s = await startTestServer({ config: { webhookRetryScale: 0.00001 } });
    defer(() => s.close());
    return seedOwner(s);
  };

  test("refuse internal addresses when added, IPv4, IPv6 and IPv4-mapped alike, and send them nothing", async () => {
    const rx = receiver();
    const o = await start();
    const port = new URL(rx.url).port;
    for (const url of [
      rx.url,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://017700000001:${port}/`,
      `http://[::127.0.0.1]:${port}/`,
      `http://[::7f00:1]:${port}/`,
      `http://[::ffff:0:127.0.0.1]:${port}/`,
      `http://[64:ff9b::127.0.0.1]:${port}/`,
      `http://[2002:7f00:1::1]:${port}/`,
      "http://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[fe80::1]/",
      "http://[fd00::1]/",
      "http://0.0.0.0/",
      "http://224.0.0.1/",
      "http://100.64.0.1/",
    ]) {
      const res = await s.json(`/api/v1/forms/${o.formId}/webhooks`, {
        method: "POST",
        key: o.key,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
      expect([url, res.status, res.body.error]).toEqual([
        url,
        400,
        expect.stringMatching(
          /^url refused: .*(loopback|private|linkLocal|uniqueLocal|unspecified|multicast|carrierGradeNat|ipv4Compatible|rfc6145|rfc6052|6to4) address/,
        ),
      ]);
    }
    expect((await s.query("SELECT count(*) AS n FROM webhooks"))[0].n).toBe(0);
    expect(rx.requests).toHaveLength(0);
  });

  test("refuse an internal address again at delivery (the name may resolve elsewhere by then)", async () => {
    const rx = receiver();
    const o = await start();
    // As if a public name had since been pointed at this machine: the row is written straight to the database.
    await s.exec(
      "INSERT INTO webhooks (id, form_id, url, format, secret, enabled, created_at) VALUES ('whk_rebound', ?, ?, 'standard', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 1, '2026-01-01T00:00:00.000Z')",
      o.formId,
      `${rx.url}/hook`,
    );
    await s.json("/api/v1/forms/submit", {
      method: "POST",
      key: o.key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ formId: o.formId, data: { n: 1 } }),
    });
    const [d] = await until(
      async () => (await s.json("/api/v1/webhooks/whk_rebound/deliveries", { key: o.key })).body,
      (l: any[]) => l[0]?.status === "failed",
      15_000,
    );
    expect(d.lastError).toContain("127.0.0.1, a loopback address");
    expect(d.lastStatus).toBeNull();
    expect(rx.requests).toHaveLength(0);
  });
});

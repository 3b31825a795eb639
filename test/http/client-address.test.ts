import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

// The test's socket is loopback: each server trusts it, or a list without it.
const LOOPBACK = "127.0.0.1,::1";
const servers: Record<"untrusted" | "trusted" | "cloudflare" | "untrustedCloudflare", TestServer> = {} as never;
const keys: Record<string, { key: string; formId: string }> = {};

beforeAll(async () => {
  const configs = {
    untrusted: { trustedProxies: "10.0.0.0/8,2001:db8::/32" },
    trusted: { trustedProxies: LOOPBACK },
    cloudflare: { trustedProxies: LOOPBACK, clientIpHeader: "CF-Connecting-IP" },
    untrustedCloudflare: { trustedProxies: "173.245.48.0/20", clientIpHeader: "CF-Connecting-IP" },
  } as const;
  for (const [name, config] of Object.entries(configs) as [
    keyof typeof configs,
    (typeof configs)[keyof typeof configs],
  ][]) {
    servers[name] = await startTestServer({ config: { rateLimit: 3, ...config } });
    keys[name] = await seedOwner(servers[name], "owner@example.com");
  }
});
afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
});

/** The country stored with a submission sent with `headers` (geo of the client address, or CF-IPCountry). */
async function countryOf(name: keyof typeof servers, headers: Record<string, string>): Promise<string> {
  const s = servers[name];
  const { key, formId } = keys[name]!;
  const res = await s.request("/api/v1/forms/submit", {
    method: "POST",
    key,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ formId, data: {} }),
  });
  expect(res.status).toBe(200);
  const { submissionId } = await res.json();
  return JSON.parse(
    (await s.query<{ data: string }>("SELECT data FROM submissions WHERE id = ?", submissionId))[0]!.data,
  )._meta.country;
}

/** Statuses of keyless requests, each claiming another client: their rate-limit buckets show who the server thinks sent them. */
async function statuses(name: keyof typeof servers, claims: Record<string, string>[]): Promise<number[]> {
  const out: number[] = [];
  for (const headers of claims) {
    const res = await servers[name].request("/api/v1/forms/list", { headers });
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

describe("the client address behind proxies", () => {
  test("a forged X-Forwarded-For from an untrusted peer changes nothing: one bucket and the peer's own country", async () => {
    const forged = ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"].map((a) => ({
      "x-forwarded-for": `${a}, 10.0.0.1`,
    }));
    expect(await statuses("untrusted", forged)).toEqual([401, 401, 401, 429]);
    expect(await countryOf("untrusted", { "x-forwarded-for": "81.2.69.142" })).toBe("ZZ");
  });

  test("a trusted peer's X-Forwarded-For names the client: the rightmost address that is not a proxy", async () => {
    expect(
      await statuses(
        "trusted",
        ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"].map((a) => ({ "x-forwarded-for": a })),
      ),
    ).toEqual([401, 401, 401, 401]);
    // What a client writes to the left of the address our proxy appended is not believed.
    const invented = ["192.0.2.10", "192.0.2.11", "192.0.2.12", "192.0.2.13"].map((a) => ({
      "x-forwarded-for": `${a}, 198.51.100.20`,
    }));
    expect(await statuses("trusted", invented)).toEqual([401, 401, 401, 429]);
    expect(await countryOf("trusted", { "x-forwarded-for": "8.8.8.8, 81.2.69.142, 127.0.0.1" })).toBe("GB");
  });

  test("CF-Connecting-IP and CF-IPCountry are read only in Cloudflare mode, and only from a trusted peer", async () => {
    const cf = { "cf-connecting-ip": "8.8.8.8", "cf-ipcountry": "DE" };
    expect(await countryOf("cloudflare", cf)).toBe("DE");
    expect(await countryOf("cloudflare", { "cf-connecting-ip": "81.2.69.142" })).toBe("GB");
    expect(await countryOf("trusted", cf)).toBe("ZZ");
    expect(await countryOf("untrustedCloudflare", cf)).toBe("ZZ");
    expect(
      await statuses(
        "untrustedCloudflare",
        ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"].map((a) => ({ "cf-connecting-ip": a })),
      ),
    ).toEqual([401, 401, 401, 429]);
  });

  test("X-Forwarded-Proto from an untrusted peer does not make the server's own origin https", async () => {
    // A login with an unknown email: 401 once the origin check passed, 403 CSRF when it did not.
    for (const [trustedProxies, expected] of [
      ["10.0.0.0/8", 403],
      [LOOPBACK, 401],
    ] as const) {
      const s = await startTestServer({ config: { trustedProxies } });
      try {
        const res = await s.request("/api/v1/auth/login", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: s.url.replace("http:", "https:"),
            "x-forwarded-proto": "https",
          },
          body: JSON.stringify({ email: "nobody@example.com", password: "not the password" }),
        });
        expect(res.status).toBe(expected);
      } finally {
        await s.close();
      }
    }
  });
});

import { describe, expect, test } from "bun:test";
import { clientOrigin, LOCAL_PROXY_RANGES, proxyTrust, type ClientIpHeader } from "../../src/lib/client-ip";
import { ConfigError, loadConfig } from "../../src/config";

const PROXIES = ["10.0.0.0/8", "2001:db8:ffff::/48", "198.51.100.7/32"];

interface Case {
  name: string;
  peer: string | null;
  headers?: Record<string, string>;
  header?: ClientIpHeader;
  ranges?: readonly string[];
  ip: string;
  country?: string | null;
  viaProxy?: boolean;
}

const cases: Case[] = [
  {
    name: "an untrusted peer is the client whatever it forwards",
    peer: "203.0.113.9",
    headers: { "x-forwarded-for": "8.8.8.8", "cf-connecting-ip": "8.8.4.4", "cf-ipcountry": "DE" },
    ip: "203.0.113.9",
    viaProxy: false,
  },
  {
    name: "an untrusted peer's CF headers are ignored in Cloudflare mode too",
    peer: "203.0.113.9",
    header: "CF-Connecting-IP",
    headers: { "cf-connecting-ip": "8.8.4.4", "cf-ipcountry": "DE" },
    ip: "203.0.113.9",
    viaProxy: false,
  },
  {
    name: "no socket address: unknown, headers ignored",
    peer: null,
    headers: { "x-forwarded-for": "8.8.8.8" },
    ip: "unknown",
    viaProxy: false,
  },
  { name: "a trusted peer without the header: the peer", peer: "10.0.0.2", ip: "10.0.0.2" },
  {
    name: "a trusted peer: the rightmost forwarded address",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "8.8.8.8" },
    ip: "8.8.8.8",
  },
  {
    name: "an appending proxy: what the client invented on the left is skipped",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "1.1.1.1, 2.2.2.2, 8.8.8.8" },
    ip: "8.8.8.8",
  },
  {
    name: "a chain of trusted proxies is walked to the first untrusted address",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "1.1.1.1, 8.8.8.8, 198.51.100.7, 10.9.9.9" },
    ip: "8.8.8.8",
  },
  {
    name: "every entry trusted: the leftmost",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "10.1.1.1, 10.2.2.2" },
    ip: "10.1.1.1",
  },
  {
    name: "a malformed entry stops the walk at the last good address",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "8.8.8.8, nonsense, 10.3.3.3" },
    ip: "10.3.3.3",
  },
  {
    name: "a malformed rightmost entry leaves the peer",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "8.8.8.8, unknown" },
    ip: "10.0.0.2",
  },
  {
    name: "an empty entry counts as malformed",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "8.8.8.8, , 10.3.3.3" },
    ip: "10.3.3.3",
  },
  {
    name: "inet_aton forms are malformed, not addresses",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "8.8.8.8, 127.1" },
    ip: "10.0.0.2",
  },
  {
    name: "ports and brackets are stripped",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "[2001:db8::1]:443, 8.8.8.8:5123" },
    ip: "8.8.8.8",
  },
  {
    name: "a bracketed IPv6 client behind a trusted IPv6 proxy",
    peer: "10.0.0.2",
    headers: { "x-forwarded-for": "[2001:db8::1]:443, 2001:db8:ffff::5" },
    ip: "2001:db8::1",
  },
  {
    name: "an IPv4-mapped peer is judged as its IPv4 address",
    peer: "::ffff:10.0.0.2",
    headers: { "x-forwarded-for": "8.8.8.8" },
    ip: "8.8.8.8",
  },
  {
    name: "X-Forwarded-For mode reads no CF header",
    peer: "10.0.0.2",
    headers: { "cf-connecting-ip": "8.8.4.4", "cf-ipcountry": "DE" },
    ip: "10.0.0.2",
    country: null,
  },
  {
    name: "Cloudflare mode: CF-Connecting-IP and CF-IPCountry",
    peer: "10.0.0.2",
    header: "CF-Connecting-IP",
    headers: { "cf-connecting-ip": "8.8.4.4", "cf-ipcountry": "de", "x-forwarded-for": "1.1.1.1" },
    ip: "8.8.4.4",
    country: "DE",
  },
  {
    name: "Cloudflare mode: Tor and unknown are no country",
    peer: "10.0.0.2",
    header: "CF-Connecting-IP",
    headers: { "cf-connecting-ip": "8.8.4.4", "cf-ipcountry": "T1" },
    ip: "8.8.4.4",
    country: null,
  },
  {
    name: "Cloudflare mode: a malformed CF-Connecting-IP leaves the peer",
    peer: "10.0.0.2",
    header: "CF-Connecting-IP",
    headers: { "cf-connecting-ip": "8.8.4.4, 1.1.1.1" },
    ip: "10.0.0.2",
  },
  {
    name: "FORMSVC_TRUST_PROXY's ranges trust a loopback peer",
    peer: "127.0.0.1",
    ranges: LOCAL_PROXY_RANGES,
    headers: { "x-forwarded-for": "8.8.8.8, 192.168.1.1" },
    ip: "8.8.8.8",
  },
  {
    name: "FORMSVC_TRUST_PROXY's ranges trust no public peer",
    peer: "8.8.4.4",
    ranges: LOCAL_PROXY_RANGES,
    headers: { "x-forwarded-for": "8.8.8.8" },
    ip: "8.8.4.4",
    viaProxy: false,
  },
  {
    name: "an empty trusted list trusts nobody, loopback included",
    peer: "127.0.0.1",
    ranges: [],
    headers: { "x-forwarded-for": "8.8.8.8" },
    ip: "127.0.0.1",
    viaProxy: false,
  },
];

describe("clientOrigin", () => {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(c.headers ?? {})) headers.append(name, value);
    const origin = clientOrigin(headers, c.peer, proxyTrust(c.ranges ?? PROXIES, c.header));
    expect(origin).toEqual({ ip: c.ip, proxyCountry: c.country ?? null, viaProxy: c.viaProxy ?? true });
  });

  test("joins repeated X-Forwarded-For lines in order, the last line rightmost", () => {
    const headers = new Headers([
      ["x-forwarded-for", "8.8.8.8"],
      ["x-forwarded-for", "10.1.1.1"],
    ]);
    expect(clientOrigin(headers, "10.0.0.2", proxyTrust(PROXIES)).ip).toBe("8.8.8.8");
  });
});

describe("FORMSVC_TRUSTED_PROXIES and FORMSVC_CLIENT_IP_HEADER", () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (e) {
      return (e as ConfigError).problems;
    }
  };

  test("reads addresses and CIDR ranges of both families, as ranges", () => {
    const c = loadConfig({
      FORMSVC_TRUSTED_PROXIES: " 10.0.0.5, 173.245.48.0/20,2400:cb00::/32 ,::1",
      FORMSVC_CLIENT_IP_HEADER: "cf-connecting-ip",
    });
    expect(c.trustedProxies).toEqual(["10.0.0.5/32", "173.245.48.0/20", "2400:cb00::/32", "::1/128"]);
    expect(c.clientIpHeader).toBe("CF-Connecting-IP");
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({}).clientIpHeader).toBe("X-Forwarded-For");
  });

  test.each([
    ["a host name", { FORMSVC_TRUSTED_PROXIES: "proxy.example.com" }, "FORMSVC_TRUSTED_PROXIES"],
    ["a prefix too long", { FORMSVC_TRUSTED_PROXIES: "10.0.0.0/33" }, "10.0.0.0/33"],
    ["an inet_aton form", { FORMSVC_TRUSTED_PROXIES: "10.0.0.1, 127.1" }, '"127.1"'],
    ["two slashes", { FORMSVC_TRUSTED_PROXIES: "10.0.0.0/8/8" }, "10.0.0.0/8/8"],
    ["an unknown header", { FORMSVC_CLIENT_IP_HEADER: "X-Real-IP" }, "FORMSVC_CLIENT_IP_HEADER"],
    [
      "Cloudflare's header with no trusted proxy",
      { FORMSVC_CLIENT_IP_HEADER: "CF-Connecting-IP" },
      "FORMSVC_TRUSTED_PROXIES",
    ],
  ])("refuses %s, naming it", (_, env, named) => {
    const found = problems(env);
    expect(found.length).toBe(1);
    expect(found[0]).toContain(named);
  });

  test("reports a bad list and a bad header together", () => {
    const found = problems({ FORMSVC_TRUSTED_PROXIES: "nope", FORMSVC_CLIENT_IP_HEADER: "nope", FORMSVC_PORT: "x" });
    expect(found.map((p) => p.split(":")[0]).sort()).toEqual([
      "FORMSVC_CLIENT_IP_HEADER",
      "FORMSVC_PORT",
      "FORMSVC_TRUSTED_PROXIES",
    ]);
  });
});

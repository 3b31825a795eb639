import { describe, expect, test } from "bun:test";
import { isLocationUrl, locationUrl } from "../../src/lib/location-url";

// [as sent, what the Location header carries]
const GOOD: [string, string][] = [
  ["https://example.com/thanks?x=1", "https://example.com/thanks?x=1"],
  ["HTTP://EXAMPLE.COM", "http://example.com/"],
  ["https://www.example.co.uk:8443/a/b#done", "https://www.example.co.uk:8443/a/b#done"],
  ["http://localhost:3000/ok", "http://localhost:3000/ok"],
  ["https://example.com./", "https://example.com./"],
  ["https://xn--r8jz45g.jp/", "https://xn--r8jz45g.jp/"],
  // International names as the browser writes them: punycode host, percent-encoded path and query.
  ["https://例え.jp/パス?q=é", "https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%C3%A9"],
  ["http://192.0.2.7/", "http://192.0.2.7/"],
  ["http://0x7f.1/", "http://127.0.0.1/"],
  ["http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080/x"],
  // What the URL parser leaves raw but RFC 3986 does not allow outside the host is percent-encoded.
  [
    "https://example.com/a|b^c[1]{x}`y?q=[1]|2#f#g",
    "https://example.com/a%7Cb%5Ec%5B1%5D%7Bx%7D%60y?q=%5B1%5D%7C2#f%23g",
  ],
  ["https://example.com/%zz%41", "https://example.com/%25zz%41"],
  ["https://example.com/a\\b", "https://example.com/a/b"],
  ["https://@example.com/", "https://example.com/"],
];

const BAD: [string, string][] = [
  ['https://a"b.example/', "a quote in the host"],
  ["https://a<b.example/", "an angle bracket in the host"],
  ["https://a{b}.example/", "braces in the host"],
  ["https://a_b.example/", "an underscore in the host"],
  ["https://-a.example/", "a label starting with a hyphen"],
  ["https://a-.example/", "a label ending with a hyphen"],
  ["https://a..b/", "an empty label"],
  [`https://${"a".repeat(64)}.example/`, "a label over 63 characters"],
  ["https://exa%mple.com/", "a percent sign in the host"],
  ["https://u:p@example.com/", "userinfo"],
  ["https:example.com", "no //"],
  ["/thanks", "a relative URL"],
  ["//example.com/", "a scheme-relative URL"],
  ["ftp://example.com/", "another scheme"],
  ["javascript:alert(1)", "javascript:"],
  ["https://ex ample.com/", "a space"],
  ["https://example.com/a\r\nSet-Cookie: x=1", "a line break"],
  ["https://example.com/\t", "a tab"],
  [" https://example.com/", "a leading space"],
  ["https://", "no host"],
  ["https://1.2.3.999/", "an IPv4 address out of range"],
  ["https://[::1/", "an unclosed IPv6 address"],
  ["", "nothing"],
];

describe("locationUrl", () => {
  test("takes absolute http(s) URLs whose host is a host name or an address, normalised to a valid URI", () => {
    for (const [url, location] of GOOD) {
      expect([url, locationUrl(url), isLocationUrl(url)]).toEqual([url, location, true]);
      expect(URL.canParse(location) && /^[\x21-\x7e]+$/.test(location)).toBe(true);
    }
  });

  test("refuses anything else", () => {
    for (const [url, why] of BAD) expect([why, locationUrl(url), isLocationUrl(url)]).toEqual([why, null, false]);
  });
});

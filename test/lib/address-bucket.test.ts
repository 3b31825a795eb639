import { describe, expect, test } from "bun:test";
import { addressBucket } from "../../src/lib/address-bucket";

describe("addressBucket", () => {
  test("keeps an IPv4 address as it is", () => {
    expect(addressBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(addressBucket("127.0.0.1")).toBe("127.0.0.1");
  });

  test("puts an IPv4-mapped IPv6 address in its IPv4 address's bucket, in dotted and in hex form", () => {
    for (const mapped of ["::ffff:1.2.3.4", "::FFFF:1.2.3.4", "::ffff:102:304", "0:0:0:0:0:ffff:0102:0304"]) {
      expect([mapped, addressBucket(mapped)]).toEqual([mapped, "1.2.3.4"]);
    }
  });

  test("puts every address of one IPv6 /64 in one bucket, however it is spelled", () => {
    const spellings = [
      "2001:db8:0:1::1",
      "2001:db8:0:1:ffff:ffff:ffff:ffff",
      "2001:0DB8:0000:0001:0000:0000:0000:0001",
      "2001:db8::1:abcd:0:0:9",
      "[2001:db8:0:1::2]",
      "[2001:db8:0:1::2]:443",
    ];
    for (const address of spellings) expect([address, addressBucket(address)]).toEqual([address, "2001:db8:0:1::/64"]);
  });

  test("keeps addresses of different IPv6 /64s apart", () => {
    expect(addressBucket("2001:db8:0:1::1")).not.toBe(addressBucket("2001:db8:0:2::1"));
    expect(addressBucket("2001:db8:0:1::1")).not.toBe(addressBucket("2001:db9:0:1::1"));
  });

  test("drops the zone of a link-local address and the port a proxy may add", () => {
    expect(addressBucket("fe80::1%eth0")).toBe("fe80::/64");
    expect(addressBucket("203.0.113.7:51234")).toBe("203.0.113.7");
    expect(addressBucket(" 203.0.113.7 ")).toBe("203.0.113.7");
  });

  test("puts anything it cannot read as an address in one shared unknown bucket", () => {
    for (const junk of [
      "",
      "unknown",
      "not an address",
      "1.2.3.256",
      "127.1",
      "0x7f000001",
      "1.2.3.010",
      "2001:db8::g",
      "[1.2.3.4",
      "::ffff:1.2.3.4:80:90",
      "🙂",
    ]) {
      expect([junk, addressBucket(junk)]).toEqual([junk, "unknown"]);
    }
  });
});

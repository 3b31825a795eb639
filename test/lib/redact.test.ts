import { expect, test } from "bun:test";
import { createLogger } from "../../src/lib/log";
import { redactAddresses } from "../../src/lib/redact";

const cases: [reply: string, logged: string][] = [
  [
    "550 5.1.1 <ada@example.com>: Recipient address rejected: User unknown",
    "550 5.1.1 <[address]>: Recipient address rejected: User unknown",
  ],
  [
    "550 Requested action not taken: mailbox unavailable (Ada.Lovelace+forms@Mail.Example.co.uk)",
    "550 Requested action not taken: mailbox unavailable ([address])",
  ],
  [
    '553 sender "bob@example.org" and recipient "eve@[192.0.2.1]" refused',
    '553 sender "[address]" and recipient "[address]" refused',
  ],
  ["452 4.2.2 over quota: x_y.z@sub-domain.example;retry later", "452 4.2.2 over quota: [address];retry later"],
  [
    "could not connect to the SMTP server: connect ECONNREFUSED 127.0.0.1:25",
    "could not connect to the SMTP server: connect ECONNREFUSED 127.0.0.1:25",
  ],
  ["HTTP 500", "HTTP 500"],
];

test.each(cases)("an SMTP reply is logged with every address it quotes redacted: %p", (reply, logged) => {
  expect(redactAddresses(reply)).toBe(logged);
  const lines: string[] = [];
  createLogger("warn", (l) => void lines.push(l)).warn("delivery attempt failed", {
    kind: "autoresponse",
    error: reply,
  });
  expect(JSON.parse(lines[0]!)).toMatchObject({ kind: "autoresponse", error: logged });
});

import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signatures of what formsvc hands out for a browser to bring back (file links, thank-you back
 * links): an HMAC-SHA-256 of the parts, one per line, in base64url. Each use starts its parts with
 * something only it signs (a file id, a label), so a signature of one kind is never another's.
 */
export function createSigner(secret: string) {
  const sign = (...parts: string[]) => createHmac("sha256", secret).update(parts.join("\n")).digest("base64url");
  return {
    sign,
    /** Whether `signature` is that of `parts`; compared in constant time. */
    verifies(signature: string, ...parts: string[]): boolean {
      const expected = Buffer.from(sign(...parts));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type Signer = ReturnType<typeof createSigner>;

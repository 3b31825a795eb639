// Pragmatic address check (RFC 5322 "dot-atom" local part, a dotted domain): what mail servers accept in practice.
const LOCAL = "a-z0-9!#$%&'*+/=?^_`{|}~-";
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const EMAIL = new RegExp(`^[.${LOCAL}]+@${LABEL}(?:\\.${LABEL})+$`, "i");

const anyCase = (chars: string) => chars.replaceAll("a-z", "a-zA-Z");
/**
 * What `normalizeEmail` takes, as a JSON Schema pattern (no flags): whitespace around it, a dot-atom
 * local part, a dotted domain. Its lengths (at most 254, 64 before the @) are the descriptions' to say.
 */
export const EMAIL_PATTERN = `^\\s*[${anyCase(LOCAL)}]+(?:\\.[${anyCase(LOCAL)}]+)*@${anyCase(LABEL)}(?:\\.${anyCase(LABEL)})+\\s*$`;

/** The address trimmed and lower-cased when it is a valid email address, else null. */
export function normalizeEmail(value: string): string | null {
  const v = value.trim().toLowerCase();
  if (v.length > 254 || !EMAIL.test(v)) return null;
  const local = v.slice(0, v.indexOf("@"));
  if (local.length > 64 || local.startsWith(".") || local.endsWith(".") || local.includes("..")) return null;
  return v;
}

/**
 * The submitter's address: the first valid string under a key named `email` (any case),
 * else under a key containing `email`; trimmed and lower-cased.
 */
export function extractEmail(data: Record<string, unknown>): string | null {
  const keys = Object.keys(data);
  for (const exact of [true, false]) {
    for (const key of keys) {
      const k = key.toLowerCase();
      if (exact ? k !== "email" : !k.includes("email")) continue;
      const value = data[key];
      if (typeof value !== "string") continue;
      const email = normalizeEmail(value);
      if (email) return email;
    }
  }
  return null;
}

/**
 * The extracted email of a submission's data: a valid `_replyto` (a drop-in page's, the last when
 * repeated) first, else the usual rule. The server stores it; the dashboard and CLI show the same.
 */
export function senderEmail(data: Record<string, unknown>): string | null {
  const replyTo = Array.isArray(data._replyto) ? data._replyto[data._replyto.length - 1] : data._replyto;
  return (typeof replyTo === "string" ? normalizeEmail(replyTo) : null) ?? extractEmail(data);
}

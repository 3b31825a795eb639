import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new signing secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export const newWebhookSecret = () => `${PREFIX}${randomBytes(24).toString("base64")}`;

/**
 * The Standard Webhooks signature headers of one attempt: `webhook-id` (the same on every retry and
 * replay), `webhook-timestamp` (this attempt, Unix seconds) and `webhook-signature`, `v1,` and the
 * base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's base64-decoded key.
 */
export function signatureHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(timestampSeconds), "webhook-signature": `v1,${signature}` };
}

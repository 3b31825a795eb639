import { randomBytes } from "node:crypto";

/** How long a confirmation link works. */
export const CONFIRMATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A new confirmation token: 256 random bits, URL-safe. */
export const newConfirmationToken = () => randomBytes(32).toString("base64url");

/** What is stored of a token: its SHA-256, so the database alone opens no link. */
export const hashConfirmationToken = (token: string) => Bun.SHA256.hash(token, "hex") as string;

/** A token as it can appear in a link: exactly what newConfirmationToken makes. */
export const looksLikeToken = (s: string) => /^[A-Za-z0-9_-]{43}$/.test(s);

import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { AppError } from "./errors";

/** Seals small secrets (TOTP secrets) with AES-256-GCM: `v1.<iv>.<ciphertext+tag>`, base64url. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

const KEY_BYTES = 32;

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error("the secret key must be 32 bytes");
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `v1.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed) {
      const [version, iv, body] = sealed.split(".");
      if (version !== "v1" || !iv || !body) throw new Error("not a sealed secret");
      const bytes = Buffer.from(body, "base64url");
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        throw wrongKey("the secret key is not the one the TOTP secrets were sealed with");
      }
    },
  };
}

/** A key that cannot open what is sealed: every TOTP person is locked out until it is restored, which the operator must hear. */
const wrongKey = (why: string) =>
  new AppError(
    "UNAVAILABLE",
    `two-step login is unavailable: ${why}. The operator restores FORMSVC_SECRET_KEY or formsvc.key from a backup, or resets each second factor (formsvc owners 2fa reset)`,
    { "retry-after": "300" },
  );

/**
 * The key secrets are sealed under, never stored in the database (a copy of the database alone
 * must not reveal them): FORMSVC_SECRET_KEY (base64 of 32 bytes) or, without it, the key file
 * at `file`, made (0600) with a random key on first use. Read lazily: a server whose people
 * never enrol a second factor never makes the file. It is made only while `anySealed` is false:
 * a missing file beside sealed secrets is a lost key, and a new one would seal new secrets under
 * a key that the restored file then contradicts.
 */
export function loadSecretKey(
  configured: string,
  file: string,
): (anySealed: () => Promise<boolean>) => Promise<Buffer> {
  let key: Buffer | null = null;
  return async (anySealed) => {
    if (key) return key;
    if (configured) {
      const decoded = Buffer.from(configured, "base64");
      if (decoded.length !== KEY_BYTES) throw new Error("FORMSVC_SECRET_KEY must be base64 of 32 bytes");
      return (key = decoded);
    }
    if (!existsSync(file)) {
      if (await anySealed()) throw wrongKey(`the key file ${file} is missing`);
      mkdirSync(dirname(file), { recursive: true });
      // "wx": two processes starting at once cannot both write a key; the loser reads the winner's.
      try {
        writeFileSync(file, randomBytes(KEY_BYTES).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      chmodSync(file, 0o600);
    }
    const decoded = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
    if (decoded.length !== KEY_BYTES) throw new Error(`${file} must hold base64 of 32 bytes`);
    return (key = decoded);
  };
}

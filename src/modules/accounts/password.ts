import { AppError } from "../../lib/errors";

/**
 * argon2id with OWASP's first recommended setting: 19 MiB of memory, 2 passes, one lane. 50 to 80 ms
 * per hash or check on this project's 2-core machine, busy (`npx bun bench/password.ts`), off the
 * event loop: slow enough to make guessing a stolen hash costly, light enough that a login costs
 * the server little (Bun's default, 64 MiB, took 5 times as long here). The parameters live in
 * each hash, so changing them here applies to new hashes, and an older hash is rehashed at its
 * owner's next login.
 */
const PARAMS = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;
const CURRENT = `$argon2id$v=19$m=${PARAMS.memoryCost},t=${PARAMS.timeCost},p=1$`;

/** Passwords are at least this many characters (Unicode code points): long passphrases, no composition rules. */
export const MIN_PASSWORD_LENGTH = 12;
/** And at most this many: enough for any passphrase or generated password, and no hashing of megabytes. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * The hash an unknown email (or an owner without a password) is checked against, made with PARAMS
 * from a password nobody knows: a login costs the same work whether the email exists or not.
 */
export const DUMMY_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$yZEOG4uJGXi4COTHeLJCupdys/i4QNuOmblLSg7Bzww$43UsLywSKeo5IF4pZBSKQJ9fyCYF2sNAzxo7Uesn7Ss";

/** Refuses (400) a password outside the length rule, saying what the rule is. */
export function checkPasswordRule(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    throw new AppError(
      "INVALID_PARAMETER",
      `the password must be at least ${MIN_PASSWORD_LENGTH} characters (it has ${length}); a few words make a good one`,
    );
  if (length > MAX_PASSWORD_LENGTH)
    throw new AppError("INVALID_PARAMETER", `the password must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

/** The password's argon2id hash in the standard `$argon2id$v=19$m=…,t=…,p=…$salt$hash` form, with a fresh salt. */
export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, PARAMS);

/** Whether the password matches the hash; off the event loop, like the hashing. */
export const verifyPassword = (password: string, hash: string): Promise<boolean> => Bun.password.verify(password, hash);

/** Whether a hash was made with other parameters than today's (then it is replaced at the next login). */
export const isOutdated = (hash: string): boolean => !hash.startsWith(CURRENT);

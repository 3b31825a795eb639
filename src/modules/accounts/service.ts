import { randomBytes } from "node:crypto";
import { DatabaseBusyError, isDatabaseBusy, retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Principal } from "../../lib/principal";
import type { AuditService } from "../audit/service";
import type { OwnersService } from "../owners/service";
import { checkPasswordRule, DUMMY_HASH, hashPassword, isOutdated, verifyPassword } from "./password";
import type { AccountsRepo, Credentials } from "./repo";
import { failureWindow } from "./throttle";

/** An owner as the API shows them to themselves. */
export interface Account {
  id: string;
  email: string;
  createdAt: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** Failed logins per email within the window (CONTRACT). */
const FAILURES_PER_EMAIL = 5;
/**
 * Failed logins per client address (IPv6 by /64) within the window, whatever the emails: enough
 * for an office behind one address to mistype, too few to try a list of emails five times each.
 */
const FAILURES_PER_ADDRESS = 20;
// Writing last_seen_at on every request would cost a commit each; a minute's precision is plenty for days of idle time.
const TOUCH_INTERVAL_MS = 60_000;
/** A login waits for another process's write lock at most this long, then is answered 503. */
const WRITE_WAIT_MS = 5_000;
const TOKEN_PREFIX = "fss_";

const hashToken = (token: string) => Bun.SHA256.hash(token, "hex");
const toAccount = (c: Credentials): Account => ({ id: c.ownerId, email: c.email, createdAt: c.createdAt });
const throttled = (retryAfter: number, which: string) =>
  new AppError("RATE_LIMITED", `too many failed logins ${which}; try again in ${retryAfter} s (Retry-After)`, {
    "retry-after": String(retryAfter),
  });

export interface AccountsDeps {
  repo: AccountsRepo;
  owners: OwnersService;
  clock: Clock;
  sessionIdleDays: number;
  sessionMaxDays: number;
  /** Each login is a line of the audit trail, as the session it starts. */
  audit: Pick<AuditService, "record">;
}

/**
 * Owner accounts: passwords (argon2id), login with its throttles, and sessions. A session is a
 * random token (32 bytes) of which only the SHA-256 is stored; it acts as its owner's secret key
 * until it is idle for `sessionIdleDays`, `sessionMaxDays` have passed since the login, or it is
 * ended (logout, revocation, a new password). Every check reads the database, so a session ended
 * by another process (`owners sessions revoke`) is refused from the next request on.
 */
export function createAccountsService({ repo, owners, clock, sessionIdleDays, sessionMaxDays, audit }: AccountsDeps) {
  const idleMs = sessionIdleDays * DAY_MS;
  const maxMs = sessionMaxDays * DAY_MS;
  const now = () => clock.now();
  const failuresByEmail = failureWindow(repo, "email", FAILURES_PER_EMAIL, THROTTLE_WINDOW_MS, now);
  const failuresByAddress = failureWindow(repo, "address", FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS, now);

  const validEmail = (email: string) => {
    const normalized = normalizeEmail(email);
    if (!normalized) throw new AppError("INVALID_PARAMETER", "email must be an email address");
    return normalized;
  };

  return {
    /** How long the browser may keep a session cookie: the session's absolute lifetime. */
    sessionMaxAgeSeconds: maxMs / 1000,

    /**
     * Sets the owner's password (the owner is created if new, as every command naming an owner
     * does) and ends all their sessions: a new password is also how one locks out a stolen session.
     * A password outside the length rule is refused and changes nothing.
     */
    async setPassword(
      email: string,
      password: string,
    ): Promise<{ owner: string; ownerCreated: boolean; sessionsEnded: number }> {
      checkPasswordRule(password);
      const existing = await owners.findOwner(email);
      const hash = await hashPassword(password);
      const owner = existing ?? (await owners.ensureOwner(email));
      const sessionsEnded = await repo.replacePassword(owner.id, hash, isoTime(clock.now()));
      return { owner: owner.email, ownerCreated: !existing, sessionsEnded };
    },

    /**
     * Checks the email and password and opens a session; `address` is the client's rate-limit
     * address. A wrong email and a wrong password get the same 401 after the same work (an
     * unknown email is checked against a dummy hash). Five failures for one email within 15
     * minutes, or twenty from one address, make further attempts a 429 until the oldest leaves
     * the window; every attempt is counted as it starts, so parallel guesses cannot pass the limit.
     */
    async login(
      input: { email: string; password: string },
      address: string,
    ): Promise<{ account: Account; token: string }> {
      const email = validEmail(input.email);
      const byEmail = await retryWhileBusy(() => failuresByEmail.attempt(email), WRITE_WAIT_MS);
      if (!byEmail.allowed) throw throttled(byEmail.retryAfter, "for this email");
      const byAddress = await retryWhileBusy(() => failuresByAddress.attempt(address), WRITE_WAIT_MS);
      if (!byAddress.allowed) {
        await retryWhileBusy(() => failuresByEmail.forgive(byEmail.id), WRITE_WAIT_MS);
        throw throttled(byAddress.retryAfter, "from this address");
      }
      const credentials = await repo.findCredentialsByEmail(email);
      const matches = await verifyPassword(input.password, credentials?.passwordHash ?? DUMMY_HASH);
      if (!matches || !credentials?.passwordHash) throw new AppError("UNAUTHORIZED", "wrong email or password");
      await retryWhileBusy(
        () => Promise.all([failuresByEmail.clear(email), failuresByAddress.forgive(byAddress.id)]),
        WRITE_WAIT_MS,
      );

      if (isOutdated(credentials.passwordHash)) {
        const rehashed = await hashPassword(input.password);
        try {
          await repo.updatePasswordHash(credentials.ownerId, rehashed);
        } catch (e) {
          // The old hash still works: a database locked by another process only delays the upgrade.
          if (!isDatabaseBusy(e)) throw e;
        }
      }
      const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
      const session = {
        id: newId("ses"),
        ownerId: credentials.ownerId,
        tokenHash: hashToken(token),
        createdAt: isoTime(clock.now()),
      };
      try {
        await retryWhileBusy(() => repo.insertSession(session), WRITE_WAIT_MS);
        const actor: Principal = { keyId: session.id, ownerId: session.ownerId, kind: "secret", forms: null };
        await retryWhileBusy(() => audit.record(actor, "owner.login", session.id), WRITE_WAIT_MS);
      } catch (e) {
        if (e instanceof DatabaseBusyError)
          throw new AppError(
            "UNAVAILABLE",
            "the database is busy with another process's write; log in again in a moment",
            { "retry-after": "1" },
          );
        throw e;
      }
      return { account: toAccount(credentials), token };
    },

    /** The owner behind a session token, as their secret key (`keyId` is the session's `ses_` id); null for an unknown, ended or expired session. */
    async authenticate(token: string): Promise<Principal | null> {
      if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
      const session = await repo.findSessionByTokenHash(hashToken(token));
      if (!session) return null;
      const at = clock.now();
      const lastSeen = Date.parse(session.lastSeenAt);
      if (at - lastSeen >= idleMs || at - Date.parse(session.createdAt) >= maxMs) return null;
      if (at - lastSeen >= TOUCH_INTERVAL_MS) {
        try {
          await repo.touchSession(session.id, isoTime(at));
        } catch (e) {
          // A database locked by another process must not fail the request; the session is only touched later.
          if (!isDatabaseBusy(e)) throw e;
        }
      }
      return { keyId: session.id, ownerId: session.ownerId, kind: "secret", forms: null };
    },

    /** The account a caller acts for. */
    async account(caller: Principal): Promise<Account> {
      const credentials = await repo.findCredentialsById(caller.ownerId);
      if (!credentials) throw new AppError("UNAUTHORIZED", "the owner of this session no longer exists");
      return toAccount(credentials);
    },

    /** Ends one session (logout); later requests with its token are a 401. */
    endSession(sessionId: string): Promise<void> {
      return repo.deleteSession(sessionId);
    },

    /** Ends every session of the owner; a running server refuses them from the next request on. */
    async revokeSessions(email: string): Promise<{ owner: string; sessionsEnded: number }> {
      const owner = await owners.findOwner(email);
      if (!owner) throw new AppError("NOT_FOUND", `no owner ${email.trim().toLowerCase()}`);
      return { owner: owner.email, sessionsEnded: await repo.deleteOwnerSessions(owner.id) };
    },

    /** Deletes sessions past their idle or absolute lifetime (they are refused anyway; this keeps the table small). */
    deleteExpiredSessions(): Promise<number> {
      const at = clock.now();
      return repo.deleteExpiredSessions(isoTime(at - idleMs), isoTime(at - maxMs));
    },

    /** Forgets login failures older than the throttle's window: they no longer count against anyone. */
    forgetOldFailures: (): Promise<number> => repo.deleteFailuresBefore(isoTime(now() - THROTTLE_WINDOW_MS)),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

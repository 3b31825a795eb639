import { randomBytes } from "node:crypto";
import { DatabaseBusyError, isDatabaseBusy, retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { canonicalTimeZone } from "../../lib/people-time";
import type { Principal } from "../../lib/principal";
import { personalTeamId, type Role } from "../../lib/rights";
import type { AuditService } from "../audit/service";
import type { OutboxRepo } from "../outbox/repo";
import type { OwnersService } from "../owners/service";
import { checkPasswordRule, DUMMY_HASH, hashPassword, isOutdated, verifyPassword } from "./password";
import type { AccountsRepo, Credentials, SessionOrigin } from "./repo";
import { failureWindow } from "./throttle";

/** An owner as the API shows them to themselves. */
export interface Account {
  id: string;
  email: string;
  createdAt: string;
  timeZone: string;
  smtpConfigured: boolean;
  /** The person logs in with a TOTP code after their password. */
  totpEnabled: boolean;
  recoveryCodesLeft: number;
}

/** One of a person's sessions as their list shows it; never its token. */
export interface SessionInfo {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  address: string | null;
  current: boolean;
}

export type { SessionOrigin };

const DAY_MS = 24 * 60 * 60 * 1000;
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** Failed logins per email within the window (CONTRACT). */
export const FAILURES_PER_EMAIL = 5;
/**
 * Failed logins per client address (IPv6 by /64) within the window, whatever the emails: enough
 * for an office behind one address to mistype, too few to try a list of emails five times each.
 */
export const FAILURES_PER_ADDRESS = 20;
// Writing last_seen_at on every request would cost a commit each; a minute's precision is plenty for days of idle time.
const TOUCH_INTERVAL_MS = 60_000;
/** A login waits for another process's write lock at most this long, then is answered 503. */
const WRITE_WAIT_MS = 5_000;
const TOKEN_PREFIX = "fss_";
/** A setup link (first run) works this long after `serve` printed it (CONTRACT). */
const SETUP_TTL_MS = 30 * 60 * 1000;
const SETUP_PREFIX = "fsu_";
/** A reset link works this long, once (CONTRACT). */
const RESET_TTL_MS = 60 * 60 * 1000;
const RESET_PREFIX = "fsr_";
/**
 * At most one reset email per owner within this long, however often it is asked for (answered 202
 * all the same): the endpoint cannot be used to flood an owner's inbox, and a link asked for twice
 * by mistake is still the one that arrives.
 */
const RESET_EMAIL_INTERVAL_MS = 5 * 60 * 1000;
/** Reset requests per client address (IPv6 by /64) within the throttle's window, for any emails: 429 beyond. */
const RESETS_PER_ADDRESS = 5;
/** The most of a User-Agent a session keeps: enough to tell browsers apart, and a header cannot fill the table. */
const MAX_USER_AGENT = 512;

const hashToken = (token: string) => Bun.SHA256.hash(token, "hex");
export const throttled = (retryAfter: number, which: string) =>
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
  /** Where reset emails are queued (kind `password_reset`), and how the outbox is told to send them now. */
  outbox: Pick<OutboxRepo, "insert">;
  sendSoon: () => void;
  /** FORMSVC_SMTP_URL is set: without it every email waits in the outbox, which the dashboard tells its reader. */
  smtpConfigured: boolean;
  /** A person's role in each of their teams. */
  rolesOf: (ownerId: string) => Promise<ReadonlyMap<string, Role>>;
  /** Whether the person has a TOTP second factor. */
  totpOn: (ownerId: string) => Promise<boolean>;
  recoveryCodesLeft: (ownerId: string) => Promise<number>;
  /** FORMSVC_REQUIRE_2FA: every session must have proved a second factor, or enrol one. */
  require2fa: boolean;
}

/**
 * Owner accounts: passwords (argon2id), login with its throttles, and sessions. A session is a
 * random token (32 bytes) of which only the SHA-256 is stored; it acts as its owner's secret key
 * until it is idle for `sessionIdleDays`, `sessionMaxDays` have passed since the login, or it is
 * ended (logout, revocation, a new password). Every check reads the database, so a session ended
 * by another process (`owners sessions revoke`) is refused from the next request on.
 */
export function createAccountsService({
  repo,
  owners,
  clock,
  sessionIdleDays,
  sessionMaxDays,
  audit,
  outbox,
  sendSoon,
  smtpConfigured,
  rolesOf,
  totpOn,
  recoveryCodesLeft,
  require2fa,
}: AccountsDeps) {
  const idleMs = sessionIdleDays * DAY_MS;
  const maxMs = sessionMaxDays * DAY_MS;
  const now = () => clock.now();
  const failuresByEmail = failureWindow(repo, "email", FAILURES_PER_EMAIL, THROTTLE_WINDOW_MS, now);
  const failuresByAddress = failureWindow(repo, "address", FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS, now);
  // Every reset request counts, as the login failures do, under names of their own ("reset <address>").
  const resetsByAddress = failureWindow(repo, "address", RESETS_PER_ADDRESS, THROTTLE_WINDOW_MS, now);

  const toAccount = async (c: Credentials): Promise<Account> => ({
    id: c.ownerId,
    email: c.email,
    createdAt: c.createdAt,
    timeZone: c.timeZone,
    smtpConfigured,
    totpEnabled: await totpOn(c.ownerId),
    recoveryCodesLeft: await recoveryCodesLeft(c.ownerId),
  });

  const validEmail = (email: string) => {
    const normalized = normalizeEmail(email);
    if (!normalized) throw new AppError("INVALID_PARAMETER", "email must be an email address");
    return normalized;
  };

  /**
   * A session acts as its person in every team they are a member of, with their role there; read
   * afresh on each request, so a changed role counts at once. With FORMSVC_REQUIRE_2FA, a session
   * that has proved no second factor (at its login, or by enrolling one) reaches only enrolment,
   * whatever its person did in another session since.
   */
  const sessionPrincipal = async (id: string, ownerId: string, secondFactor: boolean): Promise<Principal> => ({
    keyId: id,
    ownerId,
    kind: "secret",
    forms: null,
    teams: await rolesOf(ownerId),
    team: personalTeamId(ownerId),
    ...(require2fa && !secondFactor ? { enrolmentDue: true as const } : {}),
  });

  /**
   * Opens a session for the owner: its token (only the hash is stored) and the session as a caller,
   * and the login's line in the audit trail. `secondFactor`: the login proved one.
   */
  async function startSession(
    ownerId: string,
    origin: SessionOrigin,
    secondFactor = false,
  ): Promise<{ token: string; principal: Principal }> {
    const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
    const session = {
      id: newId("ses"),
      ownerId,
      tokenHash: hashToken(token),
      createdAt: isoTime(clock.now()),
      userAgent: origin.userAgent?.slice(0, MAX_USER_AGENT) || null,
      address: origin.address || null,
      secondFactor,
    };
    let principal: Principal;
    try {
      await retryWhileBusy(() => repo.insertSession(session), WRITE_WAIT_MS);
      principal = await sessionPrincipal(session.id, ownerId, secondFactor);
      const actor = principal;
      await retryWhileBusy(() => audit.record(actor, actor.team, "owner.login", session.id), WRITE_WAIT_MS);
    } catch (e) {
      if (e instanceof DatabaseBusyError)
        throw new AppError(
          "UNAVAILABLE",
          "the database is busy with another process's write; log in again in a moment",
          {
            "retry-after": "1",
          },
        );
      throw e;
    }
    return { token, principal };
  }

  /**
   * The owner whose email and password these are, with login's throttles: a wrong email and a wrong
   * password get the same 401 after the same work (an unknown email is checked against a dummy hash).
   * Five failures for one email within 15 minutes, or twenty from one address, make further attempts
   * a 429 until the oldest leaves the window; every attempt is counted as it starts, so parallel
   * guesses cannot pass the limit.
   */
  async function checkPassword(input: { email: string; password: string }, address: string): Promise<Credentials> {
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
    return credentials;
  }

  return {
    /** How long the browser may keep a session cookie: the session's absolute lifetime. */
    sessionMaxAgeSeconds: maxMs / 1000,

    /** Whether emails (resets among them) go out now, or only wait in the outbox until FORMSVC_SMTP_URL is set. */
    smtpConfigured,

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
     * Checks the email and password (checkPassword: its throttles) and opens a session; `address` is
     * the client's rate-limit address, `origin` what the session keeps of its client. A person with
     * a second factor gets no session but the challenge `challengeFor` answers, to finish the login
     * with (`finishLogin`).
     */
    async login(
      input: { email: string; password: string },
      address: string,
      origin: SessionOrigin,
      challengeFor: (ownerId: string) => Promise<string | null> = async () => null,
    ): Promise<{ account: Account; token: string } | { challenge: string }> {
      const credentials = await checkPassword(input, address);
      const challenge = await challengeFor(credentials.ownerId);
      if (challenge) return { challenge };
      const { token } = await startSession(credentials.ownerId, origin);
      return { account: await toAccount(credentials), token };
    },

    /** Opens the session of a login whose second factor was just checked, as `login` does. */
    async finishLogin(ownerId: string, origin: SessionOrigin): Promise<{ account: Account; token: string }> {
      const credentials = await repo.findCredentialsById(ownerId);
      if (!credentials) throw new AppError("UNAUTHORIZED", "this owner no longer exists");
      return { account: await toAccount(credentials), token: (await startSession(ownerId, origin, true)).token };
    },

    /** The email of an owner (the account name an authenticator app shows). */
    emailOf: async (ownerId: string): Promise<string> => (await repo.findCredentialsById(ownerId))?.email ?? ownerId,

    /** The owner with this email and password (checkPassword: login's throttles, a 401 when wrong), without a session. */
    checkPassword: async (
      input: { email: string; password: string },
      address: string,
    ): Promise<{ ownerId: string }> => ({
      ownerId: (await checkPassword(input, address)).ownerId,
    }),

    /** Whether the owner has a password (one made by `init --owner` or an invitation not yet accepted has none). */
    hasPassword: async (ownerId: string): Promise<boolean> => !!(await repo.findCredentialsById(ownerId))?.passwordHash,

    /** Stores a password hashed beforehand (password.ts, outside any transaction: hashing is slow) and ends the owner's sessions. */
    setPasswordHash: (ownerId: string, hash: string): Promise<number> =>
      repo.replacePassword(ownerId, hash, isoTime(clock.now())),

    /** Opens a session for an owner who proved who they are another way (an invitation's link): as login's, with its audit line. */
    openSession: startSession,

    /** The session has proved a second factor after its login: its person enrolled one in it. */
    markSecondFactor: (sessionId: string): Promise<void> => repo.markSecondFactor(sessionId),

    /**
     * A new first-run setup link's token while no owner has a password (null once one has): valid
     * for 30 minutes, single use. Only its hash is kept, in the database, so that with several
     * instances on one PostgreSQL database a link printed by one works on any; each start adds its
     * own, and the first one used ends them all.
     */
    async issueSetupToken(): Promise<string | null> {
      if (await repo.anyPassword()) return null;
      const token = SETUP_PREFIX + randomBytes(32).toString("base64url");
      const at = now();
      await retryWhileBusy(
        () => repo.insertSetupToken(hashToken(token), isoTime(at + SETUP_TTL_MS), isoTime(at)),
        WRITE_WAIT_MS,
      );
      return token;
    },

    /** Owners without a password: the setup link cannot log in as them (`serve` says so at first run). */
    ownersWithoutPassword: (): Promise<number> => repo.countWithoutPassword(),

    /**
     * First run: with a live setup link, sets the first owner's email and password (the password
     * rules of `owners set-password`) and logs them in. A wrong, lapsed or used link is a 400, once
     * any owner has a password a 409, and an existing owner's address a 409 OWNER_EXISTS (that
     * owner resets its password); each changes nothing.
     */
    async setup(
      input: {
        token: string;
        email: string;
        password: string;
      },
      origin: SessionOrigin,
    ): Promise<{ account: Account; token: string }> {
      const email = validEmail(input.email);
      checkPasswordRule(input.password);
      const hash = await hashPassword(input.password);
      const tokenHash = hashToken(input.token);
      const ownerId = await retryWhileBusy(
        () =>
          repo.atomically(async () => {
            const at = isoTime(now());
            if (!(await repo.useSetupToken(tokenHash, at))) return null;
            // An owner made on the command line (`init --owner`) has keys and no password: the link must
            // not hand it to whoever holds the link. Thrown here, past the link's check, so that only its
            // holder learns the address is taken; the rollback keeps the link.
            if (await owners.findOwner(email))
              throw new AppError(
                "OWNER_EXISTS",
                `${email} is an owner already: set its password with a password reset (the login page's "Forgot your password?"), or set up with another address`,
              );
            const owner = await owners.ensureOwner(email);
            await repo.replacePassword(owner.id, hash, at);
            return owner.id;
          }),
        WRITE_WAIT_MS,
      );
      if (!ownerId) {
        if (await repo.anyPassword())
          throw new AppError("CONFLICT", "formsvc is already set up: log in, or ask for a password reset");
        throw new AppError(
          "INVALID_PARAMETER",
          "this setup link is wrong, used or expired (it works for 30 minutes): restart formsvc serve for a new one",
        );
      }
      const credentials = (await repo.findCredentialsById(ownerId))!;
      return { account: await toAccount(credentials), token: (await startSession(ownerId, origin)).token };
    },

    /**
     * Asks for a password reset link for `email`; `address` is the client's rate-limit address.
     * Answers the same (nothing) for a known and an unknown email; a known owner, with a password or not,
     * gets one email with a link (1 hour, single use; only its hash is stored), at most one per
     * RESET_EMAIL_INTERVAL_MS. More than RESETS_PER_ADDRESS requests from one address within 15
     * minutes are a 429.
     */
    async requestReset(input: { email: string }, address: string): Promise<void> {
      const email = validEmail(input.email);
      const attempt = await retryWhileBusy(() => resetsByAddress.attempt(`reset ${address}`), WRITE_WAIT_MS);
      if (!attempt.allowed)
        throw new AppError(
          "RATE_LIMITED",
          `too many password reset requests from this address; try again in ${attempt.retryAfter} s (Retry-After)`,
          { "retry-after": String(attempt.retryAfter) },
        );
      const credentials = await repo.findCredentialsByEmail(email);
      // An owner without a password (made by `init --owner`) gets one too: how it sets its first.
      if (!credentials) return;
      const token = RESET_PREFIX + randomBytes(32).toString("base64url");
      const queued = await retryWhileBusy(
        () =>
          repo.atomically(async () => {
            const at = now();
            const last = await repo.lastResetAt(credentials.ownerId);
            if (last && at - Date.parse(last) < RESET_EMAIL_INTERVAL_MS) return false;
            const createdAt = isoTime(at);
            await repo.insertReset({
              tokenHash: hashToken(token),
              ownerId: credentials.ownerId,
              createdAt,
              expiresAt: isoTime(at + RESET_TTL_MS),
            });
            // The token rides in the outbox row until its email is out; then only its hash is kept.
            await outbox.insert({
              kind: "password_reset",
              formId: null,
              submissionId: null,
              recipient: credentials.email,
              formName: "",
              data: "{}",
              payload: JSON.stringify({ token }),
              submittedAt: createdAt,
              createdAt,
            });
            return true;
          }),
        WRITE_WAIT_MS,
      );
      if (queued) sendSoon();
    },

    /**
     * Sets a new password with a reset link: the link and every other of the owner's are used up,
     * and every session of theirs ends. A wrong, used or lapsed link is a 400 and changes nothing.
     */
    async confirmReset(input: { token: string; password: string }): Promise<void> {
      checkPasswordRule(input.password);
      const refused = new AppError(
        "INVALID_PARAMETER",
        "this reset link is wrong, used or expired (it works once, for 1 hour): ask for a new one",
      );
      if (!input.token.startsWith(RESET_PREFIX) || input.token.length > 100) throw refused;
      const hash = await hashPassword(input.password);
      const ownerId = await retryWhileBusy(
        () => repo.useReset(hashToken(input.token), hash, isoTime(now())),
        WRITE_WAIT_MS,
      );
      if (!ownerId) throw refused;
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
      return sessionPrincipal(session.id, session.ownerId, session.secondFactor);
    },

    /** The account a caller acts for. */
    async account(caller: Principal): Promise<Account> {
      const credentials = await repo.findCredentialsById(caller.ownerId);
      if (!credentials) throw new AppError("UNAUTHORIZED", "the owner of this session no longer exists");
      return await toAccount(credentials);
    },

    /** Changes what the owner may change of their account (`PATCH /auth/me`): the time zone emails write times in. */
    async updateAccount(caller: Principal, change: { timeZone?: string }): Promise<Account> {
      if (change.timeZone !== undefined) {
        const zone = canonicalTimeZone(change.timeZone);
        if (!zone)
          throw new AppError(
            "VALIDATION_FAILED",
            "timeZone must be an IANA time zone name, such as Europe/Berlin or UTC",
          );
        await repo.setTimeZone(caller.ownerId, zone);
      }
      const credentials = await repo.findCredentialsById(caller.ownerId);
      if (!credentials) throw new AppError("UNAUTHORIZED", "the owner of this session no longer exists");
      return await toAccount(credentials);
    },

    /** Ends one session (logout); later requests with its token are a 401. */
    endSession(sessionId: string): Promise<void> {
      return repo.deleteSession(sessionId);
    },

    /** The caller's live sessions, newest first, `current` on the one they call with; never another person's. */
    async listSessions(caller: Principal): Promise<SessionInfo[]> {
      const at = clock.now();
      return (await repo.listOwnerSessions(caller.ownerId))
        .filter((s) => at - Date.parse(s.lastSeenAt) < idleMs && at - Date.parse(s.createdAt) < maxMs)
        .map((s) => ({
          id: s.id,
          createdAt: s.createdAt,
          lastSeenAt: s.lastSeenAt,
          userAgent: s.userAgent,
          address: s.address,
          current: s.id === caller.keyId,
        }));
    },

    /** Ends one of the caller's sessions (this one too, if named): 404 for another person's or an unknown id, changing nothing. */
    async endOwnSession(caller: Principal, sessionId: string): Promise<void> {
      if (!(await repo.deleteOwnerSession(caller.ownerId, sessionId)))
        throw new AppError("NOT_FOUND", `no session ${sessionId} of yours`);
    },

    /** Ends every session of the caller's but the one they call with; returns how many ended. */
    endOtherSessions: (caller: Principal): Promise<number> => repo.deleteOtherSessions(caller.ownerId, caller.keyId),

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

    /** Forgets reset links that have lapsed (used or not): an owner's reset rows go with their expiry. */
    forgetLapsedResets: (): Promise<number> => repo.deleteResetsBefore(isoTime(now())),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

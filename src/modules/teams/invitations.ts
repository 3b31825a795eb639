import { randomBytes } from "node:crypto";
import { retryWhileBusy } from "../../db/busy";
import type { Atomically } from "../../db/sql";
import { isoTime, type Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isOperator, type Actor, type Principal } from "../../lib/principal";
import type { Right, Role } from "../../lib/rights";
import type { AccountsService, SessionOrigin } from "../accounts/service";
import { checkPasswordRule, hashPassword } from "../accounts/password";
import type { AuditService } from "../audit/service";
import type { OutboxRepo } from "../outbox/repo";
import type { OwnersService } from "../owners/service";
import type { InvitationAcceptedJson, InvitationJson } from "./invitation-model";
import type { InvitationPayload } from "./invitation-message";
import type { InvitationRow, InvitationsRepo } from "./invitations-repo";
import type { TeamsService } from "./service";

/** A link works this long, once (CONTRACT). */
const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_PREFIX = "fsi_";
/** An acceptance waits for another process's write lock at most this long, then is answered 503. */
const WRITE_WAIT_MS = 5_000;

const hashToken = (token: string) => Bun.SHA256.hash(token, "hex");

const refused = () =>
  new AppError(
    "INVALID_PARAMETER",
    "this invitation link is wrong, used or expired (it works once, for 7 days): ask the team for a new one",
  );

const toJson = (r: InvitationRow): InvitationJson => ({
  id: r.id,
  teamId: r.team_id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** What the page of a link shows before anything is accepted. */
export interface OpenInvitation {
  email: string;
  role: Role;
  teamName: string;
  invitedBy: string;
  /** The invited person's owner id, when they have one. */
  ownerId: string | null;
  /** The invited address belongs to a person with a password: they log in, where others choose one. */
  hasAccount: boolean;
}

export interface InvitationsDeps {
  repo: InvitationsRepo;
  /** The teams service's access check: the team, and the caller's role there (null for the operator). */
  teamFor: TeamsService["teamFor"];
  teamName: (teamId: string) => Promise<string>;
  insertMember: (m: { teamId: string; ownerId: string; role: Role; at: string }) => Promise<void>;
  owners: Pick<OwnersService, "ensureOwner" | "findOwner" | "findOwnerById">;
  accounts: Pick<AccountsService, "checkPassword" | "hasPassword" | "setPasswordHash" | "openSession">;
  /** Whether the person has a second factor: then a password alone opens no session here. */
  secondFactorOn: (ownerId: string) => Promise<boolean>;
  audit: Pick<AuditService, "record" | "requireBelow">;
  /** Where invitation emails are queued (kind `invitation`), and how the outbox is told to send them now. */
  outbox: Pick<OutboxRepo, "insert">;
  sendSoon: () => void;
  atomically: Atomically;
  clock: Clock;
}

/** Invitation emails one team may send a day, as recipients' confirmations are limited: else anyone with an account could mail anyone. */
const INVITATIONS_PER_DAY = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** An invitation to be an owner is an owner's to replace or withdraw, as it is an owner's to make. */
function requireOwnerFor(pending: Role | null, caller: Role, doing: string): void {
  if (pending === "owner" && caller !== "owner")
    throw new AppError(
      "ROLE_TOO_LOW",
      `only an owner may ${doing} an invitation to be an owner; the caller is ${caller}`,
    );
}

/**
 * Invitations to teams: a member who may manage members invites an address with a role; one email
 * carries a link (7 days, once; only its SHA-256 is kept) to a page where the person accepts, setting
 * a password if they have none, else with their session or password. Only accepting changes anything.
 */
export function createInvitationsService(d: InvitationsDeps) {
  const now = () => isoTime(d.clock.now());

  /** The caller's role in the team if it holds `right` there (the teams service's check); the operator's is an owner's. */
  const access = async (actor: Actor, teamId: string, right: Right): Promise<Role> =>
    (await d.teamFor(actor, teamId, right)).role ?? "owner";

  const inviter = async (actor: Actor): Promise<string> =>
    isOperator(actor) ? "cli" : ((await d.owners.findOwnerById(actor.ownerId))?.email ?? actor.ownerId);

  /** What the link's page shows; null for a link wrong, used, replaced or expired. Changes nothing. */
  async function open(token: string): Promise<OpenInvitation | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
    const row = await d.repo.findUsable(hashToken(token), now());
    if (!row) return null;
    const owner = await d.owners.findOwner(row.email);
    return {
      email: row.email,
      role: row.role,
      teamName: row.team_name,
      invitedBy: row.invited_by,
      ownerId: owner?.id ?? null,
      hasAccount: owner !== null && (await d.accounts.hasPassword(owner.id)),
    };
  }

  return {
    /**
     * Invites `email` to the team with `role` and queues the one email with its link, in one
     * transaction; a pending invitation of the same address is replaced (its link stops working).
     * An admin invites up to admin, only an owner invites an owner; an address that is a member
     * already is a 409 ALREADY_MEMBER. Returns the invitation and the link's token (for `--print-link`;
     * `email: false` queues no email).
     */
    async invite(
      actor: Actor,
      teamId: string,
      input: { email: string; role: Role },
      opts: { email?: boolean } = {},
    ): Promise<{ invitation: InvitationJson; token: string }> {
      const role = await access(actor, teamId, "members.manage");
      const email = normalizeEmail(input.email);
      if (!email) throw new AppError("INVALID_PARAMETER", "email must be an email address");
      if (input.role === "owner" && role !== "owner")
        throw new AppError("ROLE_TOO_LOW", `only an owner may invite an owner; the caller is ${role}`);
      const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
      const invitedBy = await inviter(actor);
      const row = await d.atomically(async () => {
        const member = await d.repo.roleOf(teamId, email);
        if (member) throw new AppError("ALREADY_MEMBER", `${email} is a member of this team already (${member})`);
        requireOwnerFor(await d.repo.pendingRole(teamId, { email }), role, "replace");
        await d.audit.requireBelow(
          INVITATIONS_PER_DAY,
          "member.invited",
          DAY_MS,
          { teamId },
          (wait) =>
            new AppError(
              "TOO_MANY_INVITATIONS",
              `a team sends at most ${INVITATIONS_PER_DAY} invitations in 24 hours: try again in ${Math.ceil(wait / 3600)} h`,
              { "retry-after": String(wait) },
            ),
        );
        await d.repo.deleteUnaccepted(teamId, email);
        const at = d.clock.now();
        const invitation: InvitationRow = {
          id: newId("inv"),
          team_id: teamId,
          email,
          role: input.role,
          invited_by: invitedBy,
          created_at: isoTime(at),
          expires_at: isoTime(at + INVITATION_TTL_MS),
          accepted_at: null,
        };
        await d.repo.insertInvitation({
          id: invitation.id,
          teamId,
          email,
          role: input.role,
          tokenHash: hashToken(token),
          invitedBy,
          createdAt: invitation.created_at,
          expiresAt: invitation.expires_at,
        });
        if (opts.email !== false) {
          const payload: InvitationPayload = { token, team: await d.teamName(teamId), role: input.role, invitedBy };
          // The token rides in the outbox row until its email is out; then only its hash is kept.
          await d.outbox.insert({
            kind: "invitation",
            formId: null,
            submissionId: null,
            recipient: email,
            formName: "",
            data: "{}",
            payload: JSON.stringify(payload),
            submittedAt: invitation.created_at,
            createdAt: invitation.created_at,
          });
        }
        await d.audit.record(actor, teamId, "member.invited", invitation.id, { email, role: input.role });
        return invitation;
      });
      if (opts.email !== false) d.sendSoon();
      return { invitation: toJson(row), token };
    },

    /** Forgets invitations whose link has lapsed: they only take space, and name who was invited. */
    forgetLapsed: (): Promise<number> => d.repo.deleteLapsed(now()),

    /** The team's invitations not yet accepted nor expired, oldest first; never a link. */
    async list(actor: Actor, teamId: string): Promise<InvitationJson[]> {
      await access(actor, teamId, "members.read");
      return (await d.repo.listPending(teamId, now())).map(toJson);
    },

    /** Withdraws a pending invitation: its link stops working. 404 for one accepted, or of another team. */
    async cancel(actor: Actor, teamId: string, invitationId: string): Promise<void> {
      const role = await access(actor, teamId, "members.manage");
      await d.atomically(async () => {
        requireOwnerFor(await d.repo.pendingRole(teamId, { id: invitationId }), role, "withdraw");
        if (!(await d.repo.deletePending(teamId, invitationId)))
          throw new AppError("NOT_FOUND", `no pending invitation ${invitationId} in this team`);
        await d.audit.record(actor, teamId, "invitation.cancelled", invitationId);
      });
    },

    open,

    /**
     * Accepts the link's invitation: the invited person becomes a member with its role and the link
     * is used up, in one transaction. A person with an account proves it with a session of theirs
     * (`session`) or their password (checked as a login is, throttles included); anyone else sets
     * a password here, which makes their account (and its personal team). Answers a new session's
     * token unless `session` was theirs. A wrong, used or expired link is a 400 and changes nothing.
     */
    async accept(
      input: { token: string; password?: string },
      session: Principal | null,
      address: string,
      origin: SessionOrigin,
    ): Promise<{ accepted: InvitationAcceptedJson; sessionToken: string | null }> {
      const opened = await open(input.token);
      if (!opened) throw refused();
      const owner = await d.owners.findOwner(opened.email);
      const theirSession = owner !== null && session?.ownerId === owner.id && session.keyId.startsWith("ses_");
      // FORMSVC_REQUIRE_2FA: a session held to enrolment joins nothing either.
      if (theirSession && session.enrolmentDue)
        throw new AppError("SECOND_FACTOR_ENROLMENT_REQUIRED", "this server requires a second factor: enrol one first");
      let newHash: string | null = null;
      if (!theirSession && opened.hasAccount) {
        if (input.password === undefined)
          throw new AppError(
            "UNAUTHORIZED",
            `this invitation is for ${opened.email}, who has an account: log in as ${opened.email} first, or give its password`,
          );
        const { ownerId } = await d.accounts.checkPassword({ email: opened.email, password: input.password }, address);
        if (await d.secondFactorOn(ownerId))
          throw new AppError(
            "SECOND_FACTOR_REQUIRED",
            `${opened.email} has a second factor: log in with it first, then open the invitation's link again`,
          );
      } else if (!theirSession) {
        // A person with no password (made by a sign-in with the provider) may have a second factor: a
        // password chosen here would open their account past it.
        if (owner && (await d.secondFactorOn(owner.id)))
          throw new AppError(
            "SECOND_FACTOR_REQUIRED",
            `${opened.email} has a second factor: sign in first, then open the invitation's link again`,
          );
        if (input.password === undefined)
          throw new AppError("INVALID_PARAMETER", "choose a password for your new account (12 characters or more)");
        checkPasswordRule(input.password);
        newHash = await hashPassword(input.password);
      }
      const tokenHash = hashToken(input.token);
      return retryWhileBusy(
        () =>
          d.atomically(async () => {
            const row = await d.repo.use(tokenHash, now());
            if (!row) throw refused();
            const member = owner ?? (await d.owners.ensureOwner(row.email));
            const already = await d.repo.roleOf(row.team_id, row.email);
            if (already)
              throw new AppError("ALREADY_MEMBER", `${row.email} is a member of this team already (${already})`);
            // Someone set this address's password meanwhile (a reset, the command line): it is theirs to log in with.
            if (newHash && (await d.accounts.hasPassword(member.id)))
              throw new AppError("UNAUTHORIZED", `${row.email} has a password now: log in as ${row.email} to accept`);
            if (newHash) await d.accounts.setPasswordHash(member.id, newHash);
            await d.insertMember({ teamId: row.team_id, ownerId: member.id, role: row.role, at: now() });
            const started = theirSession ? null : await d.accounts.openSession(member.id, origin);
            const actor = started?.principal ?? {
              ...session!,
              teams: new Map([...session!.teams, [row.team_id, row.role]]),
            };
            await d.audit.record(actor, row.team_id, "member.joined", member.id, {
              role: row.role,
              invitation: row.id,
            });
            return {
              accepted: {
                teamId: row.team_id,
                teamName: await d.teamName(row.team_id),
                role: row.role,
                email: row.email,
                passwordSet: newHash !== null,
              },
              sessionToken: started?.token ?? null,
            };
          }),
        WRITE_WAIT_MS,
      );
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;

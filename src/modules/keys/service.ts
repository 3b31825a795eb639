import { randomBytes } from "node:crypto";
import { isDatabaseBusy } from "../../db/busy";
import type { ChangeFeed } from "../../db/change-feed";
import type { Atomically } from "../../db/sql";
import type { Clock } from "../../lib/clock";
import { isoTime } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { AuditService } from "../audit/service";
import type { Owner } from "../owners/repo";
import type { OwnersService } from "../owners/service";
import { isOperator, requireOwnerScope, type Actor, type KeyKind, type Principal } from "../../lib/principal";
import { atLeast, authorize, KEY_ROLES, personalTeamId, type KeyRole, type Role } from "../../lib/rights";
import type { CreatedKey } from "./model";
import type { ApiKey, KeysRepo } from "./repo";

const PREFIX: Record<KeyKind, string> = { secret: "fsk_", publishable: "fpk_" };
const CACHE_LIMIT = 10_000;
// Writing last_used_at on every request would cost a commit each; a minute's precision is plenty.
const TOUCH_INTERVAL_MS = 60_000;

const hashSecret = (secret: string) => Bun.SHA256.hash(secret, "hex");
// The same SHA-256 as 32 one-byte characters: the cache's key, written in half the time of the hex the table stores.
const digestOf = (secret: string) => Bun.SHA256.hash(secret, "latin1");
const hexOf = (digest: string) => Buffer.from(digest, "latin1").toString("hex");

export interface KeyInput {
  name?: string;
  publishable?: boolean;
  forms?: string[];
  teamId?: string;
  role?: KeyRole;
}

/** A key's name and bound forms as given, checked: 400 for a bad name or list. */
function checked(input: KeyInput): { name: string; kind: KeyKind; forms: string[] | null; role: KeyRole } {
  const name = (input.name ?? "default").trim();
  if (!name || name.length > 200) throw new AppError("INVALID_PARAMETER", "key name must be 1 to 200 characters");
  const forms = input.forms === undefined ? null : [...new Set(input.forms.map((f) => f.trim()))];
  if (forms && (forms.length === 0 || forms.length > 100))
    throw new AppError("INVALID_PARAMETER", "bind a key to 1 to 100 forms, or leave --forms out for all of them");
  const role = input.role ?? "admin";
  // The API's schema says so too; the command line's flag is checked here.
  if (!KEY_ROLES.includes(role))
    throw new AppError("INVALID_PARAMETER", "a key's role must be viewer, editor or admin");
  return { name, kind: input.publishable ? "publishable" : "secret", forms, role };
}

/**
 * `formTeam` names the team of a form id (null when there is none): keys are bound only to their
 * team's forms; `teamExists` whether there is a team of that id. Keys created and revoked are
 * recorded in the audit trail, in the same transaction.
 */
export function createKeysService(
  repo: KeysRepo,
  atomically: Atomically,
  owners: OwnersService,
  clock: Clock,
  changes: ChangeFeed,
  formTeam: (formId: string) => Promise<string | null>,
  teamExists: (teamId: string) => Promise<boolean>,
  audit: Pick<AuditService, "record">,
) {
  // Key lookups are cached, and the cache is dropped whenever another process commits a change to
  // keys or owners (a revocation by the CLI is seen from the next request on), not its submissions.
  const cache = new Map<string, ApiKey | null>();
  // Reads in progress, shared by every request that misses the cache meanwhile: after a drop (another
  // instance's commit, every batch on a busy cluster), a key's next requests arrive together, and
  // one statement serves them all (as the forms' cache does).
  const loading = new Map<string, Promise<ApiKey | null>>();
  const lastTouched = new Map<string, number>();
  // One caller per stored key, made on its first request: a busy key's requests make no map each.
  const principals = new WeakMap<ApiKey, Principal>();
  // Counts the drops: a key read before a drop (a revocation) may be older than it, so it is not
  // cached, and a request after the drop starts a read of its own.
  let drops = 0;
  const clear = () => {
    drops += 1;
    cache.clear();
    loading.clear();
  };
  changes.onChange(clear, ["keys"]);

  /** The key with this digest (digestOf) as stored (null when there is none; one read for all who ask meanwhile), cached unless something was dropped while it was read. */
  const load = (digest: string): Promise<ApiKey | null> => {
    const inFlight = loading.get(digest);
    if (inFlight) return inFlight;
    const seen = drops;
    const read = repo.findKeyByHash(hexOf(digest)).finally(() => {
      if (loading.get(digest) === read) loading.delete(digest);
    });
    loading.set(digest, read);
    return read.then((key) => {
      if (seen === drops) {
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(digest, key);
      }
      return key;
    });
  };

  /** The caller of a stored key (null for none or a revoked one), its last use written at most once a minute. */
  const principalOf = (key: ApiKey | null): Principal | null | Promise<Principal | null> => {
    if (!key || !key.active) return null;
    const now = clock.now();
    let principal = principals.get(key);
    if (!principal) {
      const teams = new Map([[key.teamId, key.role]]);
      principal = { keyId: key.id, ownerId: key.ownerId, kind: key.kind, forms: key.forms, teams, team: key.teamId };
      principals.set(key, principal);
    }
    if (now - (lastTouched.get(key.id) ?? 0) < TOUCH_INTERVAL_MS) return principal;
    if (lastTouched.size >= CACHE_LIMIT) lastTouched.clear();
    lastTouched.set(key.id, now);
    return repo.touchKey(key.id, isoTime(now)).then(
      () => principal,
      (e) => {
        // Last use is a hint for `keys list`: a database locked by another process must not fail the request.
        if (!isDatabaseBusy(e)) throw e;
        return principal;
      },
    );
  };

  /** The caller of the key with this digest, answered from the cache without a statement when it can be. */
  const lookup = (digest: string): Principal | null | Promise<Principal | null> => {
    const known = cache.get(digest);
    return known !== undefined ? principalOf(known) : load(digest).then(principalOf);
  };

  /** A 400 naming the bound forms that are not this team's (or when there is no such team yet); `named` is how the caller may be told of the team. */
  const requireTeamForms = async (forms: string[] | null, teamId: string | null, named: string) => {
    const foreign: string[] = [];
    for (const id of forms ?? []) if (!teamId || (await formTeam(id)) !== teamId) foreign.push(id);
    if (foreign.length) throw new AppError("INVALID_PARAMETER", `${named} has no form ${foreign.join(", ")}`);
  };

  const mint = async (
    owner: Owner,
    teamId: string,
    key: ReturnType<typeof checked>,
    actor: Actor,
  ): Promise<CreatedKey> => {
    const secret = PREFIX[key.kind] + randomBytes(32).toString("base64url");
    const row = {
      id: newId("key"),
      ownerId: owner.id,
      teamId,
      ...key,
      prefix: secret.slice(0, 12),
      hash: hashSecret(secret),
      createdAt: isoTime(clock.now()),
    };
    await atomically(async () => {
      await repo.insertKey(row);
      await audit.record(actor, teamId, "key.created", row.id, {
        kind: key.kind,
        role: key.role,
        name: key.name,
        forms: key.forms,
      });
    });
    return {
      id: row.id,
      name: key.name,
      owner: owner.email,
      teamId,
      role: key.role,
      key: secret,
      kind: key.kind,
      forms: key.forms,
      createdAt: row.createdAt,
    };
  };

  /**
   * The key `actor` may manage: 404 when there is none (or it is another team's, for a principal),
   * then 403 KEY_SCOPE for a key that may not manage keys, then ROLE_TOO_LOW.
   */
  const keyFor = async (actor: Actor, id: string): Promise<ApiKey> => {
    const key = await repo.findKeyById(id);
    if (!key || (!isOperator(actor) && !actor.teams.has(key.teamId)))
      throw new AppError("NOT_FOUND", `no API key with id ${id}`);
    requireOwnerScope(actor);
    if (!isOperator(actor)) authorize(actor, key.teamId);
    return key;
  };

  return {
    /**
     * A new key, secret by default or publishable (submit only), in a team with a role (admin by
     * default), optionally bound to some of the team's forms. A principal's key is made in
     * `input.teamId` (default: its own team), where it must be an admin, with a secret key of all
     * the team's forms or a session (400 before 403). The operator names the owner (`input.owner`,
     * created if new) whose personal team it is, or the team. The secret is returned here and never again.
     */
    async createKey(actor: Actor, input: KeyInput & { owner?: string }): Promise<CreatedKey> {
      const key = checked(input);
      if (!isOperator(actor)) {
        const teamId = input.teamId ?? actor.team;
        // A team not the caller's is refused first: which team a form is in is no outsider's business.
        authorize(actor, teamId);
        // Then the 400, before the scope check, so that a publishable key reads it too.
        await requireTeamForms(key.forms, teamId, "this key's team");
        requireOwnerScope(actor);
        return mint((await owners.findOwnerById(actor.ownerId))!, teamId, key, actor);
      }
      if (input.owner === undefined) throw new AppError("INVALID_PARAMETER", "name the key's owner (--owner EMAIL)");
      if (input.teamId !== undefined && !(await teamExists(input.teamId)))
        throw new AppError("INVALID_PARAMETER", `there is no team ${input.teamId}`);
      // Checked before the owner is created: a refused key leaves nothing behind.
      const known = await owners.findOwner(input.owner);
      const teamId = input.teamId ?? (known && personalTeamId(known.id));
      await requireTeamForms(key.forms, teamId, known?.email ?? input.owner.trim().toLowerCase());
      const owner = known ?? (await owners.ensureOwner(input.owner));
      return mint(owner, teamId ?? personalTeamId(owner.id), key, actor);
    },

    /**
     * Keys oldest first, revoked ones too: of one of a principal's teams (`teamId`, default its own;
     * GET /keys; KEY_SCOPE as for creating, and admins only), or the operator's choice of every key
     * or one owner's personal team's (none for an owner never named).
     */
    async listKeys(actor: Actor, filter: { owner?: string; teamId?: string } = {}): Promise<ApiKey[]> {
      if (!isOperator(actor)) {
        const teamId = filter.teamId ?? actor.team;
        requireOwnerScope(actor);
        authorize(actor, teamId);
        return repo.listKeys(teamId);
      }
      if (filter.teamId !== undefined) return repo.listKeys(filter.teamId);
      if (filter.owner === undefined) return repo.listKeys(null);
      const owner = await owners.findOwner(filter.owner);
      return owner ? repo.listKeys(personalTeamId(owner.id)) : [];
    },

    /**
     * Deactivates the key; every later request with it is a 401, in this process and others.
     * Revoking a revoked key changes nothing. A key may revoke itself: this answer is its last.
     */
    async revokeKey(actor: Actor, id: string): Promise<ApiKey> {
      const key = await keyFor(actor, id);
      await atomically(async () => {
        if (await repo.revokeKey(key.id, isoTime(clock.now())))
          await audit.record(actor, key.teamId, "key.revoked", key.id, { kind: key.kind, name: key.name });
      });
      clear();
      return (await repo.findKeyById(key.id))!;
    },

    /** Forgets every key read: after a change that took keys with it in this process (a team's deletion). */
    forget: clear,

    /**
     * The keys a member made follow their place in the team, in the caller's transaction: when they
     * leave (`role` null) their keys there are revoked, and when their role falls below a key's, the
     * key's role falls with it; no one keeps through a key what their membership no longer gives.
     * Call `forget` once the transaction has committed.
     */
    async followMember(actor: Actor, teamId: string, ownerId: string, role: Role | null): Promise<void> {
      const at = isoTime(clock.now());
      for (const key of await repo.activeKeysMadeBy(teamId, ownerId)) {
        if (role === null) {
          await repo.revokeKey(key.id, at);
          await audit.record(actor, teamId, "key.revoked", key.id, {
            kind: key.kind,
            name: key.name,
            reason: "its maker left the team",
          });
        } else if (!atLeast(role, key.role)) {
          // Below a key's role means viewer or editor, both roles a key may carry.
          await repo.setKeyRole(key.id, role as KeyRole);
          await audit.record(actor, teamId, "key.role", key.id, { name: key.name, from: key.role, to: role });
        }
      }
    },

    /**
     * The caller behind a secret, or null for an unknown or revoked key: at once (no promise) when the
     * key is cached and nothing is to be written or synced, which is every request of a busy key.
     */
    authenticate(secret: string): Principal | null | Promise<Principal | null> {
      const digest = digestOf(secret);
      const synced = changes.sync();
      // PostgreSQL: a round trip, after which a drop may have emptied the cache; SQLite looks at once.
      if (synced) return synced.then(() => lookup(digest));
      return lookup(digest);
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;

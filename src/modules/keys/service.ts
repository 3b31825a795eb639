import { randomBytes } from "node:crypto";
import { isDatabaseBusy } from "../../db/busy";
import type { ChangeFeed } from "../../db/change-feed";
import type { Clock } from "../../lib/clock";
import { isoTime } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { OwnersService } from "../owners/service";
import type { KeyKind, Principal } from "../../lib/principal";
import type { ApiKey, KeysRepo } from "./repo";

/** `keys create --json`: the only time the secret is shown. */
export interface CreatedKey {
  id: string;
  name: string;
  owner: string;
  key: string;
  kind: KeyKind;
  forms: string[] | null;
  createdAt: string;
}

const PREFIX: Record<KeyKind, string> = { secret: "fsk_", publishable: "fpk_" };
const CACHE_LIMIT = 10_000;
// Writing last_used_at on every request would cost a commit each; a minute's precision is plenty.
const TOUCH_INTERVAL_MS = 60_000;

const hashSecret = (secret: string) => Bun.SHA256.hash(secret, "hex");

/**
 * `formOwner` names the owner of a form id (null when there is none): keys are bound only to their
 * owner's forms.
 */
export function createKeysService(repo: KeysRepo, owners: OwnersService, clock: Clock, changes: ChangeFeed, formOwner: (formId: string) => string | null) {
  // Key lookups are cached, and the cache is dropped whenever another process commits
  // (a revocation by the CLI is seen from the next request on).
  const cache = new Map<string, ApiKey | null>();
  const lastTouched = new Map<string, number>();
  changes.onChange(() => cache.clear());

  const lookup = (hash: string): ApiKey | null => {
    changes.sync();
    if (cache.size >= CACHE_LIMIT) cache.clear();
    let key = cache.get(hash);
    if (key === undefined) {
      key = repo.findKeyByHash(hash);
      cache.set(hash, key);
    }
    return key;
  };

  return {
    /**
     * A new key for the owner (created if new): secret by default, or publishable (submit only),
     * optionally bound to some of the owner's forms. The secret is returned here and never again.
     */
    createKey(input: { owner: string; name?: string; publishable?: boolean; forms?: string[] }): CreatedKey {
      const name = (input.name ?? "default").trim();
      if (!name || name.length > 200) throw new AppError("INVALID_PARAMETER", "key name must be 1 to 200 characters");
      const kind: KeyKind = input.publishable ? "publishable" : "secret";
      const forms = input.forms === undefined ? null : [...new Set(input.forms.map((f) => f.trim()))];
      if (forms && (forms.length === 0 || forms.length > 100)) throw new AppError("INVALID_PARAMETER", "bind a key to 1 to 100 forms, or leave --forms out for all of them");
      // Checked before the owner is created: a refused key leaves nothing behind.
      const known = owners.findOwner(input.owner);
      const foreign = forms?.filter((id) => !known || formOwner(id) !== known.id) ?? [];
      if (foreign.length) throw new AppError("INVALID_PARAMETER", `${known?.email ?? input.owner.trim().toLowerCase()} has no form ${foreign.join(", ")}`);
      const owner = known ?? owners.ensureOwner(input.owner);
      const secret = PREFIX[kind] + randomBytes(32).toString("base64url");
      const key = { id: newId("key"), ownerId: owner.id, name, kind, forms, prefix: secret.slice(0, 12), hash: hashSecret(secret), createdAt: isoTime(clock.now()) };
      repo.insertKey(key);
      return { id: key.id, name, owner: owner.email, key: secret, kind, forms, createdAt: key.createdAt };
    },

    /** Every key, or one owner's (none for an owner never named). */
    listKeys(filter: { owner?: string } = {}): ApiKey[] {
      if (filter.owner === undefined) return repo.listKeys(null);
      const owner = owners.findOwner(filter.owner);
      return owner ? repo.listKeys(owner.id) : [];
    },

    /** Deactivates the key; every later request with it is a 401, in this process and others. */
    revokeKey(id: string): ApiKey {
      const key = repo.findKeyById(id);
      if (!key) throw new AppError("NOT_FOUND", `no API key with id ${id}`);
      repo.revokeKey(id, isoTime(clock.now()));
      cache.clear();
      return repo.findKeyById(id)!;
    },

    /** The caller behind a secret, or null for an unknown or revoked key. */
    authenticate(secret: string): Principal | null {
      const key = lookup(hashSecret(secret));
      if (!key || !key.active) return null;
      const now = clock.now();
      if (now - (lastTouched.get(key.id) ?? 0) >= TOUCH_INTERVAL_MS) {
        if (lastTouched.size >= CACHE_LIMIT) lastTouched.clear();
        lastTouched.set(key.id, now);
        try {
          repo.touchKey(key.id, isoTime(now));
        } catch (e) {
          // Last use is a hint for `keys list`: a database locked by another process must not fail the request.
          if (!isDatabaseBusy(e)) throw e;
        }
      }
      return { keyId: key.id, ownerId: key.ownerId, kind: key.kind, forms: key.forms };
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;

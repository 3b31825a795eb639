import { randomBytes } from "node:crypto";
import { isDatabaseBusy } from "../../db/busy";
import type { ChangeFeed } from "../../db/change-feed";
import type { Clock } from "../../lib/clock";
import { isoTime } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { OwnersService } from "../owners/service";
import type { ApiKey, KeysRepo } from "./repo";

/** Who is calling: the key and the owner whose forms it sees (the HTTP front's `Caller`). */
export interface Principal {
  keyId: string;
  ownerId: string;
}

export interface CreatedKey {
  id: string;
  name: string;
  owner: string;
  key: string;
  createdAt: string;
}

const SECRET_PREFIX = "fsk_";
const CACHE_LIMIT = 10_000;
// Writing last_used_at on every request would cost a commit each; a minute's precision is plenty.
const TOUCH_INTERVAL_MS = 60_000;

const hashSecret = (secret: string) => Bun.SHA256.hash(secret, "hex");

export function createKeysService(repo: KeysRepo, owners: OwnersService, clock: Clock, changes: ChangeFeed) {
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
    /** A new key for the owner (created if new). The secret is returned here and never again. */
    createKey(input: { owner: string; name?: string }): CreatedKey {
      const owner = owners.ensureOwner(input.owner);
      const name = (input.name ?? "default").trim();
      if (!name || name.length > 200) throw new AppError("INVALID_PARAMETER", "key name must be 1 to 200 characters");
      const secret = SECRET_PREFIX + randomBytes(32).toString("base64url");
      const key = { id: newId("key"), ownerId: owner.id, name, prefix: secret.slice(0, 12), hash: hashSecret(secret), createdAt: isoTime(clock.now()) };
      repo.insertKey(key);
      return { id: key.id, name, owner: owner.email, key: secret, createdAt: key.createdAt };
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
      return { keyId: key.id, ownerId: key.ownerId };
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;

import type { Database } from "bun:sqlite";
import type { SQL } from "bun";

/**
 * What a commit changed, coarsely: each cache listens to the kinds it reads, so that a submission
 * committed by another instance does not empty its key cache or its spam models.
 */
export const CHANGE_KINDS = ["submissions", "forms", "keys", "spam"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * The kinds a write to each table moves, the rows its deletes cascade to included (a form's delete
 * takes its submissions). A table not named here moves every kind: forgetting one would cost
 * reloads, never a stale answer; still, test/db/schema-once.test.ts fails on a table left out
 * except those it names as left out on purpose (owners, settings, schema_migrations).
 */
export const TABLE_KINDS: Record<string, readonly ChangeKind[]> = {
  submissions: ["submissions"],
  idempotency_keys: ["submissions"],
  form_count_deltas: ["submissions"],
  form_rollup_deltas: ["submissions"],
  form_daily_counts: ["submissions"],
  form_monthly_counts: ["submissions"],
  waitlist_joiners: ["submissions"],
  waitlist_confirmations: ["submissions"],
  autoresponse_throttle: ["submissions"],
  notification_digests: ["submissions"],
  outbox: ["submissions"],
  outbox_attempts: ["submissions"],
  files: ["submissions"],
  submission_tags: ["submissions"],
  submission_notes: ["submissions"],
  submission_revisions: ["submissions"],
  spam_recent: ["submissions"],
  used_challenges: ["submissions"],
  forms: ["forms", "submissions"],
  webhooks: ["forms", "submissions"],
  recipient_confirmations: ["forms"],
  confirmation_emails: ["forms"],
  api_keys: ["keys"],
  sessions: ["keys"],
  password_resets: ["keys"],
  login_failures: ["keys"],
  setup_tokens: ["keys"],
  totp_secrets: [],
  recovery_codes: [],
  login_challenges: [],
  passkey_users: [],
  passkeys: [],
  passkey_challenges: [],
  spam_filters: ["spam"],
  spam_tokens: ["spam"],
  spam_lessons: ["spam"],
  // A team's deletion takes its keys; a member's role is read afresh by every session request.
  teams: ["forms", "keys"],
  team_members: ["keys"],
  invitations: [],
  member_notifications: [],
  // Read by no cache.
  audit_events: [],
  submission_search: [],
  partials: [],
  search_backlog: [],
  rate_buckets: [],
};

// A table written by a statement; not `DO UPDATE SET` (an upsert's) nor a `FOR [NO KEY] UPDATE` lock.
const WRITE = /(?<!\b(?:DO|FOR|KEY)\s+)\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)/gi;
const DDL = /\b(?:CREATE|ALTER|DROP|TRUNCATE)\s/i;

/** The kinds the commit of a statement moves (none for a read); a schema change moves every kind. */
export function writtenKinds(text: string): readonly ChangeKind[] {
  if (DDL.test(text)) return CHANGE_KINDS;
  const kinds = new Set<ChangeKind>();
  for (const [, table = ""] of text.matchAll(WRITE))
    for (const k of TABLE_KINDS[table.toLowerCase()] ?? CHANGE_KINDS) kinds.add(k);
  return [...kinds];
}

/**
 * Tells caches that another process committed (e.g. `formsvc keys revoke` while `serve` runs, or
 * another instance on the same PostgreSQL database). Caches register a reset with `onChange` and
 * call `sync()` before they answer. A cache keeps what it loaded only if no reset came meanwhile:
 * the reset may concern what it read.
 */
export interface ChangeFeed {
  /** `reset` runs when another process commits a change of one of `kinds` (all of them when left out). */
  onChange(reset: () => void, kinds?: readonly ChangeKind[]): void;
  /**
   * Resets the caches if another process committed since the last look. Returns a promise only
   * when the look takes a round trip (PostgreSQL): await it, then every commit made before the
   * call is known here.
   */
  sync(): void | Promise<void>;
}

/**
 * A change feed over a token the engine changes with commits: caches are reset when it differs
 * from the one seen last. It looks at most once per event-loop turn: requests read in the same turn
 * arrived together, so none of them can have arrived after a commit the look does not see. A look
 * that takes a round trip is shared by the requests of the turn it started in, not later ones.
 * `changed` names the kinds another process's commits moved since the token seen; with `maxAgeMs`,
 * the caches are also reset when they are that old, for commits the token cannot show.
 */
function tokenFeed<T>(
  look: () => T | Promise<T>,
  opts: { changed?: (seen: T, now: T) => readonly ChangeKind[]; maxAgeMs?: number } = {},
): ChangeFeed & { shareTurn(token: Promise<T>): boolean } {
  const { changed = (seen, now) => (seen !== now ? CHANGE_KINDS : []), maxAgeMs = Infinity } = opts;
  const resets: { reset: () => void; kinds: readonly ChangeKind[] }[] = [];
  let seen: T | undefined;
  let resetAt = 0;
  let lookedThisTurn = false;
  let looking: void | Promise<void>;

  const compare = (token: T) => {
    const moved = seen === undefined ? CHANGE_KINDS : changed(seen, token);
    const stale = seen === undefined || performance.now() - resetAt >= maxAgeMs;
    const kinds = stale ? CHANGE_KINDS : moved;
    seen = token;
    if (kinds.length === 0) return;
    if (stale) resetAt = performance.now();
    for (const { reset, kinds: read } of resets) if (read.some((k) => kinds.includes(k))) reset();
  };
  return {
    onChange(reset, kinds = CHANGE_KINDS) {
      resets.push({ reset, kinds });
    },
    sync() {
      if (lookedThisTurn) return looking;
      start(look());
      return looking;
    },
    /**
     * Makes `token`, read by a statement sent in this turn, this turn's look, unless one started
     * already: then it returns false and the statement need not read it.
     */
    shareTurn(token) {
      if (lookedThisTurn) return false;
      start(token);
      // No request of this turn may await it: its failure is then nobody's to report.
      (looking as Promise<void>).catch(() => {});
      return true;
    },
  };

  function start(token: T | Promise<T>) {
    lookedThisTurn = true;
    setImmediate(() => {
      lookedThisTurn = false;
      looking = undefined;
    });
    looking = token instanceof Promise ? token.then(compare) : compare(token);
  }
}

/** A statement that reads this turn's look too: the columns it adds, and where their values go. */
export interface CarriedLook {
  /** Expressions for a `SELECT` list or `RETURNING`: the feed's token, as columns named `change_<kind>`. */
  column: string;
  deliver(row: Record<string, unknown>): void;
  fail(e: unknown): void;
}

/** SQLite's change feed: `PRAGMA data_version` changes exactly when another connection commits. */
export function sqliteChangeFeed(db: Database): ChangeFeed {
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  return tokenFeed(() => dataVersion.get()!.data_version);
}

/** PostgreSQL's sequences of the change feed, one per kind: created by the schema, moved by each commit that wrote that kind. */
export const changeSequence = (kind: ChangeKind) => `formsvc_changes_${kind}`;

// The change feed's token, read by its own look or carried by another statement (subqueries: a
// sequence's last_value is read as it is at that moment, whatever the statement's snapshot).
const LAST_VALUES = CHANGE_KINDS.map((k) => `(SELECT last_value FROM ${changeSequence(k)}) AS change_${k}`).join(", ");
const tokenOf = (row: Record<string, unknown>) => CHANGE_KINDS.map((k) => Number(row[`change_${k}`]));

/**
 * How the Sql tells other processes of a write (the change feed's publish), with the kinds it wrote:
 * `publish` after a write outside a transaction; after a transaction, `publishing` is sent in its
 * `COMMIT`'s round trip (run once the commit is durable, as a statement of its own would be) and
 * `published` given its row.
 */
export interface Publisher {
  publish(kinds: readonly ChangeKind[]): Promise<void>;
  publishing(kinds: readonly ChangeKind[]): string;
  published(kinds: readonly ChangeKind[], row: Record<string, unknown>): void;
}

// How long PostgreSQL's caches live at most: how late a write made outside formsvc may be seen.
const CACHE_MAX_AGE_MS = 1000;

/**
 * PostgreSQL's change feed: a sequence per kind of change, which every process moves on after each
 * commit that wrote one of its tables (`publish`, which the Sql awaits before the commit's caller
 * goes on, or sends with its `COMMIT`), so a client's next request, to any instance, finds it
 * moved; a cache resets only on the kinds it reads (another instance's submissions leave the keys
 * cached). Read once per turn (their `last_value`s, one round trip); the moves this process made
 * itself reset nothing, as SQLite's data_version ignores the connection's own commits: the caches
 * drop what their own writes change. A NOTIFY would cost no round trip to read, but arrives after
 * the commit, so a client's next request could overtake it; and the snapshot
 * (`pg_current_snapshot()`) moves with every writing transaction, the rate limiter's too, which
 * emptied the caches on every request (bench/RESULTS.md). A write made outside formsvc (psql, a
 * restore) moves no sequence: the caches live at most CACHE_MAX_AGE_MS.
 */
export function postgresChangeFeed(pool: SQL): ChangeFeed & Publisher & { carry(): CarriedLook | null } {
  const ours = new Map<ChangeKind, Set<number>>(CHANGE_KINDS.map((k) => [k, new Set()]));
  // The kinds whose moves between the last look and this one were not all this process's.
  const othersMoved = (seen: number[], now: number[]) =>
    CHANGE_KINDS.filter((kind, i) => {
      const [from, to, mine] = [seen[i]!, now[i]!, ours.get(kind)!];
      let others = to - from > 1000;
      for (let v = from + 1; !others && v <= to; v++) others = !mine.has(v);
      for (const v of mine) if (v <= to) mine.delete(v);
      return others;
    });
  const feed = tokenFeed(async () => tokenOf((await pool.unsafe(`SELECT ${LAST_VALUES}`))[0]), {
    changed: othersMoved,
    maxAgeMs: CACHE_MAX_AGE_MS,
  });
  const statements = new Map<string, string>();
  const publishing = (kinds: readonly ChangeKind[]) => {
    const name = kinds.join();
    let text = statements.get(name);
    if (!text)
      statements.set(name, (text = `SELECT ${kinds.map((k) => `nextval('${changeSequence(k)}') AS ${k}`).join(", ")}`));
    return text;
  };
  const published = (kinds: readonly ChangeKind[], row: Record<string, unknown>) => {
    for (const k of kinds) ours.get(k)!.add(Number(row[k]));
  };
  return {
    onChange: feed.onChange,
    sync: feed.sync,
    /**
     * Lets a statement sent now (the rate limiter's take) read this turn's look, when none has
     * started yet: one round trip instead of two. Null when the look has started.
     */
    carry() {
      let deliver!: (token: number[]) => void;
      let fail!: (e: unknown) => void;
      const token = new Promise<number[]>((resolve, reject) => ((deliver = resolve), (fail = reject)));
      if (!feed.shareTurn(token)) return null;
      return { column: LAST_VALUES, deliver: (row) => deliver(tokenOf(row)), fail };
    },
    publishing,
    published,
    async publish(kinds) {
      if (kinds.length === 0) return;
      try {
        const [row] = await pool.unsafe(publishing(kinds));
        published(kinds, row);
      } catch {
        // The write is committed and must not be reported as failed: without the move, other
        // instances' caches see it within CACHE_MAX_AGE_MS instead of at once.
      }
    },
  };
}

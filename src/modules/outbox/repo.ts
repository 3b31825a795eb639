import type { Sql } from "../../db/sql";
import { isOutboxKind, OUTBOX_KINDS, SECRET_PAYLOAD, TO_SUBMITTER, type OutboxKind } from "./kinds";

export type OutboxStatus = "pending" | "sending" | "sent" | "failed";

export interface OutboxRow {
  id: number;
  kind: OutboxKind;
  /** null for an owner's password reset, which belongs to no form. */
  form_id: string | null;
  /** null for a webhook's test event. */
  submission_id: string | null;
  webhook_id: string | null;
  /** A webhook delivery's `webhook-id` (and its id in the API). */
  message_id: string | null;
  recipient: string;
  reply_to: string | null;
  form_name: string;
  data: string;
  payload: string | null;
  submitted_at: string;
  created_at: string;
  queued_at: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  sent_at: string | null;
}

/** A row as the sender claims it: with its webhook's settings as they are now. */
export interface ClaimedRow extends OutboxRow {
  webhook_url: string | null;
  webhook_format: string | null;
  webhook_secret: string | null;
  webhook_enabled: number | null;
}

/** A row to queue; `createdAt` is when it is queued (it falls due then). */
export interface QueuedMessage {
  kind: OutboxKind;
  formId: string | null;
  submissionId: string | null;
  webhookId?: string | null;
  messageId?: string | null;
  recipient: string;
  replyTo?: string | null;
  formName: string;
  data: string;
  payload?: string | null;
  submittedAt: string;
  createdAt: string;
}

/** One try at sending a row. */
export interface AttemptRecord {
  at: string;
  /** The HTTP status or SMTP reply code, when an answer came. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** What happens to a row after an attempt. */
export type NextStep =
  | { status: "sent" }
  | { status: "pending"; nextAttemptAt: string }
  /** `alert`: a sentence for the form's owner, emailed once (a webhook disabled, or out of retries). */
  | { status: "failed"; alert?: string };

/**
 * How long a claim holds a row: past it, the sender is taken for dead (a crash mid-send) and the row
 * goes back to the queue. Longer than any attempt takes with its wait for a free slot.
 */
const SEND_LEASE_MS = 10 * 60 * 1000;
const leaseFrom = (now: string) => new Date(Date.parse(now) + SEND_LEASE_MS).toISOString();

export type KindCounts = Record<OutboxKind, { pending: number; sending: number; failed: number }>;

// Kind names written into a statement's text: they come from the registry, never from a caller.
const sqlList = (kinds: readonly OutboxKind[]) => kinds.map((k) => `'${k}'`).join(", ");

const COLUMNS =
  "kind, form_id, submission_id, webhook_id, message_id, recipient, reply_to, form_name, data, payload, submitted_at, created_at, queued_at, next_attempt_at";
const INSERT = `INSERT INTO outbox (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?12)`;
/** `(CAST(?k AS type), …)` for n rows of these column types, numbered on from 1: a VALUES list of parameters. */
const valueRows = (n: number, types: readonly string[]) =>
  Array.from(
    { length: n },
    (_, i) => `(${types.map((t, k) => `CAST(?${i * types.length + k + 1} AS ${t})`).join(", ")})`,
  ).join(", ");
// One text per row count: the statement cache keeps one prepared statement for each.
const perCount = (build: (n: number) => string) => {
  const texts: string[] = [];
  return (n: number) => (texts[n] ??= build(n));
};
// A batch's messages in a statement per ROWS_PER_INSERT, not one each: on PostgreSQL each statement is a round trip.
// Built once per row count: rebuilding the text for every batch cost ~2 µs per queued row (the profile's `at`).
const ROWS_PER_INSERT = 64;
const insertRows = perCount(
  (n) =>
    `INSERT INTO outbox (${COLUMNS}) VALUES ${Array.from({ length: n }, (_, i) => {
      const at = (k: number) => `?${i * 12 + k}`;
      return `(${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 12].map(at).join(", ")})`;
    }).join(", ")}`,
);
const ATTEMPT_TYPES = ["BIGINT", "TEXT", "INTEGER", "TEXT", "DOUBLE PRECISION"] as const;
const SENT_TYPES = ["BIGINT", "TEXT", "INTEGER"] as const;
// A batch's attempts in one statement (the columns of a VALUES list are column1… on both engines).
// A row may be gone by the time its attempt ends (its webhook or form was deleted meanwhile): the
// join leaves it out, and the rest of the batch is recorded. The values are cast because PostgreSQL
// cannot tell a parameter's type from the column it goes to.
const addAttempts = perCount(
  (n) => `INSERT INTO outbox_attempts (outbox_id, at, status_code, error, duration_ms)
  SELECT o.id, v.column2, v.column3, v.column4, v.column5 FROM (VALUES ${valueRows(n, ATTEMPT_TYPES)}) AS v
  JOIN outbox o ON o.id = v.column1`,
);
// A batch's sent rows marked in one statement. The token of a kind with a secret payload (a confirmation,
// a password reset) leaves the outbox once its email is out: from then on only its hash is stored.
const markSent = perCount(
  (n) => `UPDATE outbox SET status = 'sent', sent_at = v.column2, attempts = attempts + 1,
  last_status = v.column3, last_error = NULL,
  payload = CASE WHEN kind IN (${sqlList(SECRET_PAYLOAD)}) THEN NULL ELSE payload END
  FROM (VALUES ${valueRows(n, SENT_TYPES)}) AS v WHERE outbox.id = v.column1`,
);
const MARK_RETRY =
  "UPDATE outbox SET status = 'pending', attempts = attempts + 1, next_attempt_at = ?2, last_status = ?3, last_error = ?4 WHERE id = ?1";
const MARK_FAILED =
  "UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_status = ?2, last_error = ?3 WHERE id = ?1";
// One statement: a new address takes its slot, one whose slot is older than the window takes it again, any other changes nothing.
const TAKE_SLOT = `INSERT INTO autoresponse_throttle (form_id, email, sent_at) VALUES (?1, ?2, ?3)
  ON CONFLICT (form_id, email) DO UPDATE SET sent_at = ?3 WHERE autoresponse_throttle.sent_at <= ?4`;
// Messages about an address: sent to it (an autoresponse, a confirmation) or naming it as Reply-To (an owner notification).
const addressedTo = (param: string) =>
  `(reply_to = ${param} OR (kind IN (${sqlList(TO_SUBMITTER)}) AND recipient = ${param}))`;
// ?2: a JSON list of form ids, or null for every form.
const IN_SCOPE = "(CAST(?2 AS TEXT) IS NULL OR form_id IN (SELECT value FROM json_each(?2)))";
// The condition of the partial index `outbox_unsent` (status, kind, next_attempt_at), which holds the
// rows not sent: SQLite reads a partial index only for a query that states its condition as a term,
// so each query of it does, beside the status it wants.
const UNSENT = "status <> 'sent'";
// The earliest `next_attempt_at` of the pending rows of these kinds (?1, a JSON list): one index
// probe per kind in `outbox_unsent`, where a `kind IN (…)` would read every pending row.
const EARLIEST_DUE = `SELECT min((SELECT min(next_attempt_at) FROM outbox WHERE status = 'pending' AND ${UNSENT} AND kind = k.value)) AS at
  FROM (SELECT value FROM json_each(?1)) AS k`;
const WITH_WEBHOOK = `SELECT o.*, w.url AS webhook_url, w.format AS webhook_format, w.secret AS webhook_secret, w.enabled AS webhook_enabled
  FROM outbox o LEFT JOIN webhooks w ON w.id = o.webhook_id`;

// The owner's email about a row that failed for good, queued with its marking: once, whatever the form's email settings.
const QUEUE_ALERT = `INSERT INTO outbox (${COLUMNS})
  SELECT 'webhook_alert', f.id, NULL, NULL, NULL, w.email, NULL, f.name, '{}', ?2, ?3, ?3, ?3, ?3
  FROM outbox o JOIN forms f ON f.id = o.form_id JOIN owners w ON w.id = f.owner_id WHERE o.id = ?1`;

// An operator's alert (?3: its kind, a failed backup's) to every owner who can log in: it belongs to no form.
const QUEUE_OWNER_ALERT = `INSERT INTO outbox (${COLUMNS})
  SELECT ?3, NULL, NULL, NULL, NULL, email, NULL, '', '{}', ?1, ?2, ?2, ?2, ?2
  FROM owners WHERE password_hash IS NOT NULL`;

// The sender's own bookkeeping commits without waiting for the log's sync (see claimDue, finishMany).
const LAZY = { lazy: true } as const;

const values = (m: QueuedMessage) => [
  m.kind,
  m.formId,
  m.submissionId,
  m.webhookId ?? null,
  m.messageId ?? null,
  m.recipient,
  m.replyTo ?? null,
  m.formName,
  m.data,
  m.payload ?? null,
  m.submittedAt,
  m.createdAt,
];

export function createOutboxRepo(sql: Sql) {
  return {
    ownerEmail: async (ownerId: string) =>
      (await sql.get<{ email: string }>("SELECT email FROM owners WHERE id = ?", [ownerId]))?.email ?? null,

    /** The owner as a reader of their emails: where they go, and the zone their times are written in. */
    async ownerReader(ownerId: string): Promise<{ email: string; timeZone: string } | null> {
      const r = await sql.get<{ email: string; time_zone: string }>(
        "SELECT email, time_zone FROM owners WHERE id = ?",
        [ownerId],
      );
      return r ? { email: r.email, timeZone: r.time_zone } : null;
    },

    /** Queues one alert email of this kind (`subject`, `alert`) to each owner with a password; answers how many were queued. */
    queueOwnerAlert: (kind: OutboxKind, subject: string, alert: string, at: string): Promise<number> =>
      sql.run(QUEUE_OWNER_ALERT, [JSON.stringify({ alert, subject }), at, kind]),

    /** Queues one message; runs inside the submission's transaction. */
    async insert(m: QueuedMessage): Promise<void> {
      await sql.run(INSERT, values(m));
    },

    /** Queues a batch's messages, in the order given; runs inside the batch's transaction. */
    async insertAll(messages: QueuedMessage[]): Promise<void> {
      for (let i = 0; i < messages.length; i += ROWS_PER_INSERT) {
        const chunk = messages.slice(i, i + ROWS_PER_INSERT);
        await sql.run(insertRows(chunk.length), chunk.flatMap(values));
      }
    },

    /**
     * Takes this address's autoresponse slot for the form unless it was taken after `since`;
     * returns whether it was. Runs inside the submission's transaction.
     */
    async takeAutoresponseSlot(formId: string, email: string, now: string, since: string): Promise<boolean> {
      return (await sql.run(TAKE_SLOT, [formId, email, now, since])) === 1;
    },

    /** Forgets autoresponse slots taken before `before` (they no longer hold anyone back). */
    deleteAutoresponseSlotsBefore: (before: string): Promise<number> =>
      sql.run("DELETE FROM autoresponse_throttle WHERE sent_at < ?", [before]),

    /**
     * Forgets what the outbox keeps about an address for a form, whether or not a submission of
     * theirs is still there (an erasure, inside its transaction): its autoresponse throttle, and
     * messages to it or naming it as Reply-To (with their attempts). Returns how many of each went.
     */
    async forgetAddress(formId: string, email: string): Promise<{ autoresponseThrottles: number; messages: number }> {
      return {
        autoresponseThrottles: await sql.run("DELETE FROM autoresponse_throttle WHERE form_id = ? AND email = ?", [
          formId,
          email,
        ]),
        messages: await sql.run(`DELETE FROM outbox WHERE form_id = ?1 AND ${addressedTo("?2")}`, [formId, email]),
      };
    },

    /** What forgetAddress would forget in these forms (all when null), oldest first: a person's export. */
    async listAddressRecords(
      email: string,
      formIds: string[] | null,
    ): Promise<{ autoresponseThrottles: Record<string, unknown>[]; messages: Record<string, unknown>[] }> {
      const scope = [email, formIds && JSON.stringify(formIds)];
      return {
        autoresponseThrottles: await sql.all<Record<string, unknown>>(
          `SELECT form_id AS "formId", sent_at AS "lastSentAt" FROM autoresponse_throttle WHERE email = ?1 AND ${IN_SCOPE} ORDER BY sent_at, form_id`,
          scope,
        ),
        messages: await sql.all<Record<string, unknown>>(
          `SELECT id, kind, form_id AS "formId", submission_id AS "submissionId", status, queued_at AS "queuedAt", sent_at AS "sentAt" FROM outbox WHERE ${addressedTo("?1")} AND ${IN_SCOPE} ORDER BY id`,
          scope,
        ),
      };
    },

    /** Inserts a row already claimed (`sending`) by the caller, who sends it at once (a webhook's test event); returns its id. */
    async insertSending(m: QueuedMessage): Promise<number> {
      const row = await sql.get<{ id: number }>(
        `INSERT INTO outbox (${COLUMNS}, status, lease_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?12, 'sending', ?13) RETURNING id`,
        [...values(m), leaseFrom(m.createdAt)],
      );
      return row!.id;
    },

    /**
     * Claims up to `limit` due rows of these kinds in one statement: each is marked `sending` with a
     * lease as it is picked, so no other drain, in this process or another, takes it. On PostgreSQL
     * a row another instance's claim has locked is skipped rather than waited for. On SQLite the
     * claim waits for no sync of the log (a lazy transaction): a claim lost with a power cut leaves
     * its rows pending, claimable again, as a crash mid-send leaves rows `sending` and the next start
     * releases them (`releaseStale`); either way a message may go out twice, never not at all.
     */
    async claimDue(kinds: readonly OutboxKind[], now: string, limit: number): Promise<ClaimedRow[]> {
      if (limit <= 0 || kinds.length === 0) return [];
      // The oldest due rows of each kind, each read from the index by kind (it stops after `limit`),
      // then the oldest of those: a claim reads no row of a kind it does not send.
      const dueIds = async () => {
        const due: { id: number; next_attempt_at: string }[] = [];
        for (const kind of kinds)
          due.push(
            ...(await sql.all<{ id: number; next_attempt_at: string }>(
              `SELECT id, next_attempt_at FROM outbox WHERE status = 'pending' AND ${UNSENT} AND kind = ?1 AND next_attempt_at <= ?2 ORDER BY next_attempt_at, id LIMIT ?3`,
              [kind, now, limit],
            )),
          );
        due.sort((a, b) =>
          a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.id - b.id,
        );
        return due.slice(0, limit).map((r) => r.id);
      };
      let claimed: { id: number }[];
      if (!sql.traits.soleWriter)
        // Per kind, like dueIds: `outbox_unsent` gives each kind's due rows in time order, so each
        // read stops after `limit`; over `kind IN (…)` the planner read and sorted every due row. The
        // rows locked beyond the `limit` taken are released at this statement's commit.
        claimed = await sql.all<{ id: number }>(
          `UPDATE outbox SET status = 'sending', lease_until = ?4 WHERE id IN (
             SELECT d.id FROM (SELECT value FROM json_each(?2)) AS k CROSS JOIN LATERAL (
               SELECT id, next_attempt_at FROM outbox WHERE status = 'pending' AND ${UNSENT} AND kind = k.value AND next_attempt_at <= ?1
               ORDER BY next_attempt_at, id LIMIT ?3 FOR UPDATE SKIP LOCKED) AS d
             ORDER BY d.next_attempt_at, d.id LIMIT ?3)
           RETURNING id`,
          [now, JSON.stringify(kinds), limit, leaseFrom(now)],
        );
      else {
        // Looked at first without the write lock: most claims that find nothing are a transport's with
        // nothing queued (every commit wakes both), and a transaction each cost them a BEGIN IMMEDIATE
        // and a COMMIT. The claim reads again under the lock.
        if ((await dueIds()).length === 0) return [];
        claimed = await sql.transaction(async () => {
          const ids = await dueIds();
          if (ids.length === 0) return [];
          return sql.all<{ id: number }>(
            "UPDATE outbox SET status = 'sending', lease_until = ?2 WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?1)) RETURNING id",
            [JSON.stringify(ids), leaseFrom(now)],
          );
        }, LAZY);
      }
      if (claimed.length === 0) return [];
      return sql.all<ClaimedRow>(
        `${WITH_WEBHOOK} WHERE o.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY o.next_attempt_at, o.id`,
        [JSON.stringify(claimed.map((r) => r.id))],
      );
    },

    /**
     * Records attempts, each with what follows it (sent, retried at a time, or failed), in one
     * transaction (one fsync for all): the attempts and the sent marks in a statement each per
     * ROWS_PER_INSERT results, a retry or a failure (rarer, perhaps with an alert) in its own.
     * Waits for no sync of the log: a mark lost with a power cut leaves its row `sending`, released
     * and sent again at the next start, as after a crash before the mark; the next writer's sync
     * (a submission's, within milliseconds under load) makes it durable.
     */
    finishMany(results: readonly { id: number; attempt: AttemptRecord; next: NextStep }[]): Promise<void> {
      return sql.transaction(async () => {
        for (let i = 0; i < results.length; i += ROWS_PER_INSERT) {
          const chunk = results.slice(i, i + ROWS_PER_INSERT);
          await sql.run(
            addAttempts(chunk.length),
            chunk.flatMap(({ id, attempt: a }) => [id, a.at, a.statusCode, a.error, a.durationMs]),
          );
          const sent = chunk.filter((r) => r.next.status === "sent");
          if (sent.length)
            await sql.run(
              markSent(sent.length),
              sent.flatMap(({ id, attempt: a }) => [id, a.at, a.statusCode]),
            );
        }
        for (const { id, attempt, next } of results) {
          if (next.status === "sent") continue;
          if (next.status === "pending")
            await sql.run(MARK_RETRY, [id, next.nextAttemptAt, attempt.statusCode, attempt.error]);
          else {
            await sql.run(MARK_FAILED, [id, attempt.statusCode, attempt.error]);
            if (next.alert) await sql.run(QUEUE_ALERT, [id, JSON.stringify({ alert: next.alert }), attempt.at]);
          }
        }
      }, LAZY);
    },

    /** Claimed rows that were not sent after all (a stop) go back to the queue. */
    async release(ids: readonly number[]): Promise<void> {
      // Cast: the values of a JSON array may reach PostgreSQL as text, and ids are integers.
      await sql.run(
        "UPDATE outbox SET status = 'pending', lease_until = NULL WHERE status = 'sending' AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))",
        [JSON.stringify(ids)],
      );
    },

    /**
     * Rows left `sending` by a process that died mid-send go back to the queue: those whose lease
     * ran out, or (`everyLease`, a process that is the database's only sender, restarting) all.
     */
    releaseStale: (now: string, everyLease: boolean): Promise<number> =>
      sql.run(
        `UPDATE outbox SET status = 'pending', lease_until = NULL WHERE status = 'sending' AND ${UNSENT} AND (CAST(?2 AS INTEGER) = 1 OR lease_until IS NULL OR lease_until < ?1)`,
        [now, Number(everyLease)],
      ),

    /** Makes every pending row of these kinds due now (a restart is when an operator has fixed the mail settings). */
    async makePendingDue(kinds: readonly OutboxKind[], now: string): Promise<void> {
      await sql.run(
        `UPDATE outbox SET next_attempt_at = ?1 WHERE status = 'pending' AND ${UNSENT} AND next_attempt_at > ?1 AND kind IN (SELECT value FROM json_each(?2))`,
        [now, JSON.stringify(kinds)],
      );
    },

    /** When the next pending row of these kinds falls due, if any. */
    async nextDue(kinds: readonly OutboxKind[]): Promise<string | null> {
      const row = await sql.get<{ at: string | null }>(EARLIEST_DUE, [JSON.stringify(kinds)]);
      return row?.at ?? null;
    },

    /** Puts failed rows (one, or all) back in the queue with a fresh retry horizon. */
    requeue: (id: number | null, now: string): Promise<number> =>
      sql.run(
        `UPDATE outbox SET status = 'pending', next_attempt_at = ?1, queued_at = ?1, attempts = 0 WHERE status = 'failed' AND ${UNSENT} AND (CAST(?2 AS INTEGER) IS NULL OR id = ?2)`,
        [now, id],
      ),

    /** Sends a row again, whatever became of it (a replay): pending and due now, with a fresh retry horizon. */
    async replay(id: number, now: string): Promise<void> {
      await sql.run(
        "UPDATE outbox SET status = 'pending', next_attempt_at = ?1, queued_at = ?1, attempts = 0 WHERE id = ?2 AND status <> 'sending'",
        [now, id],
      );
    },
    /** The pipeline's purge of deleted submissions: their notifications, queued, sent or failed, with the copy of the data each holds. */
    async deleteForSubmissions(batch: { id: string }[]): Promise<void> {
      for (const s of batch) await sql.run("DELETE FROM outbox WHERE submission_id = ?", [s.id]);
    },
    /** Whether a message of this kind about this submission was queued after `since` (a throttle). */
    queuedSince: async (kind: OutboxKind, formId: string, submissionId: string, since: string): Promise<boolean> =>
      (await sql.get(
        "SELECT 1 AS queued FROM outbox WHERE form_id = ? AND submission_id = ? AND kind = ? AND queued_at > ? LIMIT 1",
        [formId, submissionId, kind, since],
      )) !== null,
    /** The notifications about these submissions (a person's data export). */
    listForSubmissions: (ids: string[]): Promise<OutboxRow[]> =>
      sql.all<OutboxRow>("SELECT * FROM outbox WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY id", [
        JSON.stringify(ids),
      ]),

    /** One row as the sender sees it, with its webhook's settings. */
    findClaimedById: (id: number): Promise<ClaimedRow | null> =>
      sql.get<ClaimedRow>(`${WITH_WEBHOOK} WHERE o.id = ?`, [id]),

    findById: (id: number): Promise<OutboxRow | null> => sql.get<OutboxRow>("SELECT * FROM outbox WHERE id = ?", [id]),
    findByMessageId: (messageId: string): Promise<OutboxRow | null> =>
      sql.get<OutboxRow>("SELECT * FROM outbox WHERE message_id = ?", [messageId]),

    list: (status: OutboxStatus | null, limit: number, kind: OutboxKind | null = null): Promise<OutboxRow[]> =>
      sql.all<OutboxRow>(
        "SELECT * FROM outbox WHERE (CAST(?1 AS TEXT) IS NULL OR status = ?1) AND (CAST(?3 AS TEXT) IS NULL OR kind = ?3) ORDER BY id DESC LIMIT ?2",
        [status, limit, kind],
      ),

    /** A webhook's deliveries, newest first, each with every attempt it has had (replays and retries of failed rows too). */
    listByWebhook: (webhookId: string, limit: number): Promise<(OutboxRow & { total_attempts: number })[]> =>
      sql.all<OutboxRow & { total_attempts: number }>(
        "SELECT o.*, (SELECT CAST(count(*) AS INTEGER) FROM outbox_attempts a WHERE a.outbox_id = o.id) AS total_attempts FROM outbox o WHERE o.webhook_id = ? ORDER BY o.id DESC LIMIT ?",
        [webhookId, limit],
      ),

    async attemptsOf(id: number): Promise<AttemptRecord[]> {
      // A row's attempts never overlap (each starts after the last one is recorded), so their start times order them.
      const rows = await sql.all<{ at: string; status_code: number | null; error: string | null; duration_ms: number }>(
        "SELECT at, status_code, error, duration_ms FROM outbox_attempts WHERE outbox_id = ? ORDER BY at",
        [id],
      );
      return rows.map((a) => ({ at: a.at, statusCode: a.status_code, error: a.error, durationMs: a.duration_ms }));
    },

    /** Rows not yet sent, by kind and status; reads only the index of the rows not sent. */
    async counts(): Promise<KindCounts> {
      const out = Object.fromEntries(OUTBOX_KINDS.map((k) => [k, { pending: 0, sending: 0, failed: 0 }])) as KindCounts;
      const rows = await sql.all<{ kind: OutboxKind; status: "pending" | "sending" | "failed"; n: number }>(
        `SELECT kind, status, CAST(count(*) AS INTEGER) AS n FROM outbox WHERE ${UNSENT} GROUP BY kind, status`,
      );
      // A kind this version does not know (a newer instance's, during a rolling upgrade) is not counted.
      for (const r of rows) if (isOutboxKind(r.kind)) out[r.kind][r.status] = r.n;
      return out;
    },

    /** When the longest-waiting pending row fell due, if any. */
    async oldestDue(): Promise<string | null> {
      return (await sql.get<{ at: string | null }>(EARLIEST_DUE, [JSON.stringify(OUTBOX_KINDS)]))?.at ?? null;
    },

    /**
     * Deletes sent and failed rows created before `createdAt` (their attempts go with them). Rows are
     * walked in id order, which is the order they were queued in, from the oldest until one is newer
     * than that: no index on the age is kept (it would cost every queued row), and only the rows
     * deleted (plus a page) are read.
     */
    async deleteOldOutboxRows(createdAt: string): Promise<number> {
      let deleted = 0;
      for (let after = 0; ;) {
        const rows = await sql.all<{ id: number; created_at: string; status: OutboxStatus }>(
          "SELECT id, created_at, status FROM outbox WHERE id > ? ORDER BY id LIMIT 500",
          [after],
        );
        const old = rows.filter((r) => r.created_at < createdAt);
        const done = old.filter((r) => r.status === "sent" || r.status === "failed");
        if (done.length) {
          await sql.transaction(async () => {
            for (const r of done) deleted += await sql.run("DELETE FROM outbox WHERE id = ?", [r.id]);
          });
        }
        if (rows.length < 500 || old.length < rows.length) return deleted;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;

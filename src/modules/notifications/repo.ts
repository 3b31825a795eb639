import type { Database } from "bun:sqlite";

export type OutboxStatus = "pending" | "sending" | "sent" | "failed";
export const OUTBOX_KINDS = ["notification", "autoresponse", "confirmation", "webhook"] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

export interface OutboxRow {
  id: number;
  kind: OutboxKind;
  form_id: string;
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
  formId: string;
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
export type NextStep = { status: "sent" } | { status: "pending"; nextAttemptAt: string } | { status: "failed" };

export type KindCounts = Record<OutboxKind, { pending: number; sending: number; failed: number }>;

export function createOutboxRepo(db: Database) {
  const insert = db.prepare(
    `INSERT INTO outbox (kind, form_id, submission_id, webhook_id, message_id, recipient, reply_to, form_name, data, payload, submitted_at, created_at, queued_at, next_attempt_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?12)`,
  );
  const ownerEmail = db.prepare<{ email: string }, [string]>("SELECT email FROM owners WHERE id = ?");
  // A row may be gone by the time its attempt ends (its webhook or form was deleted meanwhile): then
  // there is nothing to record, and the batch it is recorded with must not fail for it.
  const addAttempt = db.prepare(
    "INSERT INTO outbox_attempts (outbox_id, at, status_code, error, duration_ms) SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM outbox WHERE id = ?1)",
  );
  // A confirmation's token leaves the outbox once its email is out: from then on only its hash is stored.
  const markSent = db.prepare(
    "UPDATE outbox SET status = 'sent', sent_at = ?2, attempts = attempts + 1, last_status = ?3, last_error = NULL, payload = CASE WHEN kind = 'confirmation' THEN NULL ELSE payload END WHERE id = ?1",
  );
  const markRetry = db.prepare("UPDATE outbox SET status = 'pending', attempts = attempts + 1, next_attempt_at = ?2, last_status = ?3, last_error = ?4 WHERE id = ?1");
  const markFailed = db.prepare("UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_status = ?2, last_error = ?3 WHERE id = ?1");
  const finishAll = db.transaction((results: readonly { id: number; attempt: AttemptRecord; next: NextStep }[]) => {
    for (const { id, attempt, next } of results) {
      addAttempt.run(id, attempt.at, attempt.statusCode, attempt.error, attempt.durationMs);
      if (next.status === "sent") markSent.run(id, attempt.at, attempt.statusCode);
      else if (next.status === "pending") markRetry.run(id, next.nextAttemptAt, attempt.statusCode, attempt.error);
      else markFailed.run(id, attempt.statusCode, attempt.error);
    }
  });
  // One statement: a new address takes its slot, one whose slot is older than the window takes it again, any other changes nothing.
  const takeSlot = db.prepare(
    "INSERT INTO autoresponse_throttle (form_id, email, sent_at) VALUES (?1, ?2, ?3) ON CONFLICT (form_id, email) DO UPDATE SET sent_at = ?3 WHERE sent_at <= ?4",
  );
  let inserted = 0;

  const deleteBySubmission = db.prepare("DELETE FROM outbox WHERE submission_id = ?");

  return {
    ownerEmail: (ownerId: string) => ownerEmail.get(ownerId)?.email ?? null,

    /** Queues one message; runs inside the submission's transaction. */
    insert(m: QueuedMessage): void {
      insert.run(m.kind, m.formId, m.submissionId, m.webhookId ?? null, m.messageId ?? null, m.recipient, m.replyTo ?? null, m.formName, m.data, m.payload ?? null, m.submittedAt, m.createdAt);
      inserted += 1;
    },

    /**
     * Takes this address's autoresponse slot for the form unless it was taken after `since`;
     * returns whether it was. Runs inside the submission's transaction.
     */
    takeAutoresponseSlot(formId: string, email: string, now: string, since: string): boolean {
      return takeSlot.run(formId, email, now, since).changes === 1;
    },

    /** Forgets autoresponse slots taken before `before` (they no longer hold anyone back). */
    deleteAutoresponseSlotsBefore(before: string): number {
      return db.query("DELETE FROM autoresponse_throttle WHERE sent_at < ?").run(before).changes;
    },

    /** Inserts a row already claimed (`sending`) by the caller, who sends it at once (a webhook's test event); returns its id. */
    insertSending(m: QueuedMessage): number {
      return db.transaction(() => {
        const { lastInsertRowid } = insert.run(m.kind, m.formId, m.submissionId, m.webhookId ?? null, m.messageId ?? null, m.recipient, m.replyTo ?? null, m.formName, m.data, m.payload ?? null, m.submittedAt, m.createdAt);
        db.query("UPDATE outbox SET status = 'sending' WHERE id = ?").run(lastInsertRowid);
        return Number(lastInsertRowid);
      }).immediate();
    },

    /** Rows this connection has queued so far (a commit that queued nothing need not wake the sender). */
    get inserted() {
      return inserted;
    },

    /**
     * Claims up to `limit` due rows of these kinds by marking them `sending` in one transaction, so a
     * second drain (or a second process) never picks the same row.
     */
    claimDue(kinds: readonly OutboxKind[], now: string, limit: number): ClaimedRow[] {
      if (limit <= 0 || kinds.length === 0) return [];
      return db.transaction(() => {
        const rows = db
          .query<ClaimedRow, [string, string, number]>(
            `SELECT o.*, w.url AS webhook_url, w.format AS webhook_format, w.secret AS webhook_secret, w.enabled AS webhook_enabled
             FROM outbox o LEFT JOIN webhooks w ON w.id = o.webhook_id
             WHERE o.status = 'pending' AND o.next_attempt_at <= ?1 AND o.kind IN (SELECT value FROM json_each(?2))
             ORDER BY o.next_attempt_at, o.id LIMIT ?3`,
          )
          .all(now, JSON.stringify(kinds), limit);
        const claim = db.prepare("UPDATE outbox SET status = 'sending' WHERE id = ?");
        for (const r of rows) claim.run(r.id);
        return rows;
      }).immediate();
    },

    /** Records attempts, each with what follows it (sent, retried at a time, or failed), in one transaction (one fsync for all). */
    finishMany(results: readonly { id: number; attempt: AttemptRecord; next: NextStep }[]): void {
      finishAll.immediate(results);
    },

    /** Claimed rows that were not sent after all (a stop) go back to the queue. */
    release(ids: readonly number[]): void {
      db.query("UPDATE outbox SET status = 'pending' WHERE status = 'sending' AND id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids));
    },

    /** Rows left `sending` by a process that died mid-send go back to the queue. */
    releaseStale(): number {
      return db.query("UPDATE outbox SET status = 'pending' WHERE status = 'sending'").run().changes;
    },

    /** Makes every pending row of these kinds due now (a restart is when an operator has fixed the mail settings). */
    makePendingDue(kinds: readonly OutboxKind[], now: string): void {
      db.query("UPDATE outbox SET next_attempt_at = ?1 WHERE status = 'pending' AND next_attempt_at > ?1 AND kind IN (SELECT value FROM json_each(?2))").run(now, JSON.stringify(kinds));
    },

    /** When the next pending row of these kinds falls due, if any. */
    nextDue(kinds: readonly OutboxKind[]): string | null {
      return (
        db
          .query<{ at: string | null }, [string]>("SELECT min(next_attempt_at) AS at FROM outbox WHERE status = 'pending' AND kind IN (SELECT value FROM json_each(?1))")
          .get(JSON.stringify(kinds))?.at ?? null
      );
    },

    /** Puts failed rows (one, or all) back in the queue with a fresh retry horizon. */
    requeue(id: number | null, now: string): number {
      return db
        .query("UPDATE outbox SET status = 'pending', next_attempt_at = ?1, queued_at = ?1, attempts = 0 WHERE status = 'failed' AND (?2 IS NULL OR id = ?2)")
        .run(now, id).changes;
    },

    /** Sends a row again, whatever became of it (a replay): pending and due now, with a fresh retry horizon. */
    replay(id: number, now: string): void {
      db.query("UPDATE outbox SET status = 'pending', next_attempt_at = ?1, queued_at = ?1, attempts = 0 WHERE id = ?2 AND status <> 'sending'").run(now, id);
    },
    /** The pipeline's purge of deleted submissions: their notifications, queued, sent or failed, with the copy of the data each holds. */
    deleteForSubmissions(batch: { id: string }[]): void {
      for (const s of batch) deleteBySubmission.run(s.id);
    },
    /** The notifications about these submissions (a person's data export). */
    listForSubmissions(ids: string[]): OutboxRow[] {
      return db.query<OutboxRow, [string]>("SELECT * FROM outbox WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY id").all(JSON.stringify(ids));
    },

    /** One row as the sender sees it, with its webhook's settings. */
    findClaimedById: (id: number) =>
      db
        .query<ClaimedRow, [number]>(
          `SELECT o.*, w.url AS webhook_url, w.format AS webhook_format, w.secret AS webhook_secret, w.enabled AS webhook_enabled
           FROM outbox o LEFT JOIN webhooks w ON w.id = o.webhook_id WHERE o.id = ?`,
        )
        .get(id),

    findById: (id: number) => db.query<OutboxRow, [number]>("SELECT * FROM outbox WHERE id = ?").get(id),
    findByMessageId: (messageId: string) => db.query<OutboxRow, [string]>("SELECT * FROM outbox WHERE message_id = ?").get(messageId),

    list(status: OutboxStatus | null, limit: number, kind: OutboxKind | null = null): OutboxRow[] {
      return db
        .query<OutboxRow, [string | null, number, string | null]>("SELECT * FROM outbox WHERE (?1 IS NULL OR status = ?1) AND (?3 IS NULL OR kind = ?3) ORDER BY id DESC LIMIT ?2")
        .all(status, limit, kind);
    },

    /** A webhook's deliveries, newest first, each with every attempt it has had (replays and retries of failed rows too). */
    listByWebhook(webhookId: string, limit: number): (OutboxRow & { total_attempts: number })[] {
      return db
        .query<OutboxRow & { total_attempts: number }, [string, number]>(
          "SELECT o.*, (SELECT count(*) FROM outbox_attempts a WHERE a.outbox_id = o.id) AS total_attempts FROM outbox o WHERE o.webhook_id = ? ORDER BY o.id DESC LIMIT ?",
        )
        .all(webhookId, limit);
    },

    attemptsOf(id: number): AttemptRecord[] {
      return db
        .query<{ at: string; status_code: number | null; error: string | null; duration_ms: number }, [number]>(
          "SELECT at, status_code, error, duration_ms FROM outbox_attempts WHERE outbox_id = ? ORDER BY at, rowid",
        )
        .all(id)
        .map((a) => ({ at: a.at, statusCode: a.status_code, error: a.error, durationMs: a.duration_ms }));
    },

    /** Rows not yet sent, by kind and status; reads only the short ranges of the status index that are not `sent`. */
    counts(): KindCounts {
      const out = Object.fromEntries(OUTBOX_KINDS.map((k) => [k, { pending: 0, sending: 0, failed: 0 }])) as KindCounts;
      const rows = db
        .query<{ kind: OutboxKind; status: "pending" | "sending" | "failed"; n: number }, []>(
          "SELECT kind, status, count(*) AS n FROM outbox WHERE status IN ('pending', 'sending', 'failed') GROUP BY kind, status",
        )
        .all();
      for (const r of rows) out[r.kind][r.status] = r.n;
      return out;
    },

    /** When the longest-waiting pending row fell due, if any. */
    oldestDue(): string | null {
      return db.query<{ at: string | null }, []>("SELECT min(next_attempt_at) AS at FROM outbox WHERE status = 'pending'").get()?.at ?? null;
    },

    /**
     * Deletes sent and failed rows created before `createdAt` (their attempts go with them). Rows are
     * walked in id order, which is the order they were queued in, from the oldest until one is newer
     * than that: no index on the age is kept (it would cost every queued row), and only the rows
     * deleted (plus a page) are read.
     */
    deleteOldOutboxRows(createdAt: string): number {
      const page = db.prepare<{ id: number; created_at: string; status: OutboxStatus }, [number]>("SELECT id, created_at, status FROM outbox WHERE id > ? ORDER BY id LIMIT 500");
      const remove = db.prepare("DELETE FROM outbox WHERE id = ?");
      let deleted = 0;
      for (let after = 0; ; ) {
        const rows = page.all(after);
        const old = rows.filter((r) => r.created_at < createdAt);
        db.transaction(() => {
          for (const r of old) if (r.status === "sent" || r.status === "failed") deleted += remove.run(r.id).changes;
        })();
        if (rows.length < 500 || old.length < rows.length) return deleted;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;

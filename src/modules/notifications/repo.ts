import type { Database } from "bun:sqlite";

export type OutboxStatus = "pending" | "sending" | "sent" | "failed";

export interface OutboxRow {
  id: number;
  form_id: string;
  submission_id: string;
  recipient: string;
  reply_to: string | null;
  form_name: string;
  data: string;
  submitted_at: string;
  queued_at: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  sent_at: string | null;
}

export interface QueuedNotification {
  formId: string;
  submissionId: string;
  recipient: string;
  replyTo: string | null;
  formName: string;
  data: string;
  submittedAt: string;
}

export function createOutboxRepo(db: Database) {
  const insert = db.prepare(
    `INSERT INTO outbox (form_id, submission_id, recipient, reply_to, form_name, data, submitted_at, queued_at, next_attempt_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?7)`,
  );
  const ownerEmail = db.prepare<{ email: string }, [string]>("SELECT email FROM owners WHERE id = ?");

  const deleteBySubmission = db.prepare("DELETE FROM outbox WHERE submission_id = ?");

  return {
    ownerEmail: (ownerId: string) => ownerEmail.get(ownerId)?.email ?? null,
    insertNotification(n: QueuedNotification): void {
      insert.run(n.formId, n.submissionId, n.recipient, n.replyTo, n.formName, n.data, n.submittedAt);
    },
    /**
     * Claims up to `limit` due rows by marking them `sending` in one transaction, so a second
     * drain (or a second process) never picks the same row.
     */
    claimDue(now: string, limit: number): OutboxRow[] {
      return db.transaction(() => {
        const rows = db
          .query<OutboxRow, [string, number]>("SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?")
          .all(now, limit);
        const claim = db.prepare("UPDATE outbox SET status = 'sending' WHERE id = ?");
        for (const r of rows) claim.run(r.id);
        return rows;
      }).immediate();
    },
    markSent(id: number, at: string): void {
      db.query("UPDATE outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ?").run(at, id);
    },
    markRetry(id: number, nextAttemptAt: string, error: string): void {
      db.query("UPDATE outbox SET status = 'pending', attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?").run(nextAttemptAt, error, id);
    },
    markFailed(id: number, error: string): void {
      db.query("UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?").run(error, id);
    },
    /** Rows left `sending` by a process that died mid-send go back to the queue. */
    releaseStale(): number {
      return db.query("UPDATE outbox SET status = 'pending' WHERE status = 'sending'").run().changes;
    },
    /** Makes every pending row due now (a restart is when an operator has fixed the mail settings). */
    makePendingDue(now: string): void {
      db.query("UPDATE outbox SET next_attempt_at = ? WHERE status = 'pending' AND next_attempt_at > ?").run(now, now);
    },
    /** When the next pending row falls due, if any. */
    nextDue(): string | null {
      return db.query<{ at: string | null }, []>("SELECT min(next_attempt_at) AS at FROM outbox WHERE status = 'pending'").get()?.at ?? null;
    },
    /** Puts failed rows (one, or all) back in the queue with a fresh retry horizon. */
    requeue(id: number | null, now: string): number {
      return db
        .query("UPDATE outbox SET status = 'pending', next_attempt_at = ?1, queued_at = ?1, attempts = 0 WHERE status = 'failed' AND (?2 IS NULL OR id = ?2)")
        .run(now, id).changes;
    },
    /** The pipeline's purge of deleted submissions: their notifications, queued, sent or failed, with the copy of the data each holds. */
    deleteForSubmissions(batch: { id: string }[]): void {
      for (const s of batch) deleteBySubmission.run(s.id);
    },
    /** The notifications about these submissions (a person's data export). */
    listForSubmissions(ids: string[]): OutboxRow[] {
      return db.query<OutboxRow, [string]>("SELECT * FROM outbox WHERE submission_id IN (SELECT value FROM json_each(?)) ORDER BY id").all(JSON.stringify(ids));
    },
    findById: (id: number) => db.query<OutboxRow, [number]>("SELECT * FROM outbox WHERE id = ?").get(id),
    list(status: OutboxStatus | null, limit: number): OutboxRow[] {
      return db.query<OutboxRow, [string | null, number]>("SELECT * FROM outbox WHERE ?1 IS NULL OR status = ?1 ORDER BY id DESC LIMIT ?2").all(status, limit);
    },
    counts(): Record<OutboxStatus, number> {
      const out: Record<OutboxStatus, number> = { pending: 0, sending: 0, sent: 0, failed: 0 };
      for (const r of db.query<{ status: OutboxStatus; n: number }, []>("SELECT status, count(*) AS n FROM outbox GROUP BY status").all()) out[r.status] = r.n;
      return out;
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;

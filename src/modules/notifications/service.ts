import { isDatabaseBusy, retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Logger } from "../../lib/log";
import type { NewSubmission } from "../submissions/model";
import { describeMailError, type Mailer } from "./mailer";
import { renderNotification } from "./message";
import { wantsNotification } from "./queue";
import type { OutboxRepo, OutboxRow, OutboxStatus } from "./repo";

export interface NotificationsDeps {
  repo: OutboxRepo;
  /** null while FORMSVC_SMTP_URL is unset: notifications queue up and wait. */
  mailer: Mailer | null;
  clock: Clock;
  log: Logger;
  retryBaseSeconds: number;
  retryHours: number;
}

const CLAIM_BATCH = 10;
// A sent message must be marked sent, or the next start sends it again: worth a long wait for the lock.
const MARK_WAIT_MS = 60_000;
// Backoff doubles from the base up to this cap, so a day-long outage is retried about hourly.
const MAX_DELAY_MS = 60 * 60 * 1000;

/**
 * Owner notifications through a durable outbox: queued in the submission's own transaction,
 * sent in the background, retried with exponential backoff, never sent twice once marked sent.
 * A process killed in the middle of a send leaves that one row `sending`; it is released at the
 * next start and may be sent a second time (at-least-once for that single message).
 */
export function createNotificationsService({ repo, mailer, clock, log, retryBaseSeconds, retryHours }: NotificationsDeps) {
  let draining: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  // Only `serve` sends (it calls start): a command line that queues a notification leaves it to the server.
  let started = false;
  let wakeUp: ReturnType<typeof setTimeout> | undefined;

  /** Sleeps until the earliest retry falls due (but at least `minMs`), so the backoff is kept to the moment. */
  function scheduleNextRetry(minMs = 0): void {
    clearTimeout(wakeUp);
    const next = repo.nextDue();
    if (!next || stopped) return;
    wakeUp = setTimeout(() => void drain(), Math.max(minMs, Date.parse(next) - clock.now()));
    wakeUp.unref?.();
  }

  async function deliver(row: OutboxRow): Promise<void> {
    let error: string | null = null;
    try {
      await mailer!.send(renderNotification(row));
    } catch (e) {
      error = describeMailError(e);
    }
    if (error === null) return void (await retryWhileBusy(() => repo.markSent(row.id, isoTime(clock.now())), MARK_WAIT_MS));
    const now = clock.now();
    const delay = Math.min(MAX_DELAY_MS, retryBaseSeconds * 1000 * 2 ** row.attempts);
    if (now - Date.parse(row.queued_at) >= retryHours * 3_600_000) {
      await retryWhileBusy(() => repo.markFailed(row.id, error), MARK_WAIT_MS);
      log.warn("notification failed for good", { outboxId: row.id, attempts: row.attempts + 1, error });
    } else {
      await retryWhileBusy(() => repo.markRetry(row.id, isoTime(now + delay), error), MARK_WAIT_MS);
      log.info("notification will be retried", { outboxId: row.id, attempts: row.attempts + 1, inSeconds: delay / 1000, error });
    }
  }

  async function drainLoop(): Promise<void> {
    do {
      again = false;
      for (;;) {
        if (stopped) return;
        let rows;
        try {
          rows = repo.claimDue(isoTime(clock.now()), CLAIM_BATCH);
        } catch (e) {
          // Another process holds the write lock: try again in a second.
          if (!isDatabaseBusy(e)) throw e;
          return scheduleNextRetry(1000);
        }
        if (rows.length === 0) break;
        await Promise.all(rows.map(deliver));
      }
    } while (again && !stopped);
    scheduleNextRetry();
  }

  /** Sends every due notification; one drain at a time (a call during a drain makes it go round again). */
  function drain(): Promise<void> {
    if (!mailer || stopped || !started) return Promise.resolve();
    if (draining) {
      again = true;
      return draining;
    }
    draining = drainLoop()
      .catch((e) => log.error("outbox drain failed", { error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        draining = null;
      });
    return draining;
  }

  return {
    /** After a commit: mail out what it queued now rather than at the next scheduled drain. */
    afterCommit(batch: NewSubmission[]): void {
      if (batch.some(wantsNotification)) setTimeout(drain, 0);
    },

    drain,

    /** At start-up: release rows a dead process left mid-send, say if mail is off, and send what is due. */
    start(): void {
      started = true;
      const released = repo.releaseStale();
      if (released) log.warn("released notifications left mid-send by a previous run", { count: released });
      repo.makePendingDue(isoTime(clock.now()));
      if (!mailer) log.warn("FORMSVC_SMTP_URL is not set: owner notifications are queued and will be sent once it is");
      void drain();
    },

    /** Stops draining and waits for sends in progress, so nothing is left half-sent. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(wakeUp);
      await draining;
      mailer?.close();
    },

    list(status: OutboxStatus | null, limit = 100) {
      return repo.list(status, limit);
    },

    /** Queues failed notifications again: one by id, or all. */
    retry(id: number | null): number {
      if (id !== null) {
        const row = repo.findById(id);
        if (!row) throw new AppError("NOT_FOUND", `no outbox row with id ${id}`);
        if (row.status !== "failed") throw new AppError("CONFLICT", `outbox row ${id} is ${row.status}, not failed`);
      }
      return repo.requeue(id, isoTime(clock.now()));
    },

    counts: () => repo.counts(),
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

import { isDatabaseBusy, retryWhileBusy } from "../../db/busy";
import { isoTime, type Clock } from "../../lib/clock";
import { AppError } from "../../lib/errors";
import type { Logger } from "../../lib/log";
import type { Committed } from "../submissions/pipeline";
import type { AttemptOutcome, Channel, TransportName } from "./channel";
import { DUE_AT_START, isWebhookKind, OUTBOX_KINDS, type OutboxKind } from "./kinds";
import type { AttemptRecord, ClaimedRow, NextStep, OutboxRepo, OutboxStatus } from "./repo";

export interface OutboxDeps {
  repo: OutboxRepo;
  /** How each kind of row goes out (kinds.ts's kindChannels). */
  channels: Record<OutboxKind, Channel>;
  clock: Clock;
  log: Logger;
  /** What cannot go out yet (no SMTP, no public URL for the forms that need one), said once at start. */
  notReady?: () => Promise<string[]>;
  /**
   * Whether this process is the only one sending from the database (one server per SQLite file):
   * then at its start every row left `sending` was left by its own previous run, and goes back to
   * the queue at once. Instances sharing a database wait for a row's lease to run out.
   */
  soleSender?: boolean;
}

// Rows in flight at once per transport: SMTP shares a pool of four connections (pipelined, several
// messages queued on each keep them busy); webhook receivers
// are many and slow ones (10 s timeouts) must not hold up the rest, nor mail.
const IN_FLIGHT: Record<TransportName, number> = { smtp: 16, http: 32 };
// Rows claimed at once (a transaction per claim): more than fit in flight, so a busy
// drain claims once per many deliveries. Rows claimed and not started yet are released at a stop.
const CLAIM: Record<TransportName, number> = { smtp: 64, http: 128 };
// Attempts recorded per transaction at most (a statement of attempts and one of sent marks), and how
// long the first of a batch waits for more: at 2,000 emails/s, batches of ~20.
const RECORD_BATCH = 64;
const RECORD_WAIT_MS = 10;
// A sent message must be marked sent, or the next start sends it again: worth a long wait for the lock.
const MARK_WAIT_MS = 60_000;
const TRANSPORTS: TransportName[] = ["smtp", "http"];

export type DeliveryOutcome = "sent" | "retry" | "failed";

/**
 * What the owner is told when a webhook delivery fails for good: the receiver answered 410 (and the
 * webhook is disabled), or the last retry failed. Nothing for a delivery dropped because its webhook
 * was removed or disabled already: the owner did that, or was told then.
 */
function alertFor(row: ClaimedRow, outcome: Extract<AttemptOutcome, { ok: false }>): string | undefined {
  if (!isWebhookKind(row.kind)) return undefined;
  const where = `the webhook ${row.webhook_id} (${safeHost(row.webhook_url) ?? "removed"})`;
  if (outcome.statusCode === 410)
    return `${where} answered 410 Gone and is now disabled. Delivery ${row.message_id} was not delivered. Turn the webhook on again once its receiver is back.`;
  if (outcome.final) return undefined;
  return `delivery ${row.message_id} to ${where} failed after its last retry (${row.attempts + 1} attempts; last: ${outcome.error}). Replay it with: formsvc webhooks replay ${row.message_id}`;
}

/**
 * The outbox: every message formsvc sends (each kind in kinds.ts) is a row queued in the
 * transaction of what caused it, claimed before it is sent, sent in the background through its
 * kind's channel, kept with each attempt (time, status code or error, duration), retried on its
 * kind's schedule, and never sent again once marked sent.
 * A process killed in the middle of a send leaves that one row `sending`; it is released at the
 * next start and may be sent a second time (at-least-once for that single message; webhook
 * receivers recognise it by its `webhook-id`).
 */
export function createOutboxService({
  repo,
  channels,
  clock,
  log,
  notReady = async () => [],
  soleSender = true,
}: OutboxDeps) {
  let draining: Promise<void> | null = null;
  let stopped = false;
  // Only `serve` sends (it calls start): a command line that queues a message leaves it to the server.
  let started = false;
  let wakeUp: ReturnType<typeof setTimeout> | undefined;
  // The drain loop sleeps until woken: a slot freed, a delivery recorded, something queued, a stop.
  // A wake while it is busy is remembered, so it looks again before sleeping.
  let poke: (() => void) | null = null;
  let woken = false;
  const wake = () => {
    woken = true;
    poke?.();
  };
  let poked = false;
  const inFlight: Record<TransportName, number> = { smtp: 0, http: 0 };
  const outcomes = new Map<string, number>();

  // Attempts are recorded in one transaction per batch, one batch at a time, the first attempt of a
  // batch waiting up to RECORD_WAIT_MS for others (a full batch goes at once). Each transaction writes
  // the pages its rows touch (the outbox row, its indexes, the attempts) to the log once: batches of
  // the few attempts that ended during the last one's fsync wrote those pages again every few sends.
  let marks: {
    id: number;
    attempt: AttemptRecord;
    next: NextStep;
    resolve: () => void;
    reject: (e: unknown) => void;
  }[] = [];
  let flushing = false;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  const flushNow = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    flushing = true;
    setImmediate(() => void flushMarks());
  };
  const flushSoon = () => {
    // A batch committing now looks again when it is done.
    if (flushing || marks.length === 0) return;
    if (marks.length >= RECORD_BATCH) flushNow();
    else flushTimer ??= setTimeout(flushNow, RECORD_WAIT_MS);
  };
  const flushMarks = async () => {
    const batch = marks;
    marks = [];
    try {
      await retryWhileBusy(() => repo.finishMany(batch), MARK_WAIT_MS);
      for (const m of batch) m.resolve();
    } catch (e) {
      for (const m of batch) m.reject(e);
    } finally {
      flushing = false;
      flushSoon();
    }
  };
  const record = (id: number, attempt: AttemptRecord, next: NextStep) =>
    new Promise<void>((resolve, reject) => {
      marks.push({ id, attempt, next, resolve, reject });
      flushSoon();
    });

  const readyKinds = (transport?: TransportName) =>
    OUTBOX_KINDS.filter((k) => channels[k].ready() && (transport === undefined || channels[k].transport === transport));

  /** Sleeps until the earliest retry falls due (but at least `minMs`), so the backoff is kept to the moment. */
  async function scheduleNextRetry(minMs = 0): Promise<void> {
    clearTimeout(wakeUp);
    if (stopped) return;
    const next = await repo.nextDue(readyKinds());
    if (!next || stopped) return;
    wakeUp = setTimeout(() => void drain(), Math.max(minMs, Date.parse(next) - clock.now()));
    wakeUp.unref?.();
  }

  function count(transport: TransportName, kind: OutboxKind, outcome: DeliveryOutcome): void {
    const key = `${transport}\t${kind}\t${outcome}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }

  /** One attempt at a row through its channel, timed; never throws (a thrown error is the attempt's error). */
  async function attemptRow(row: ClaimedRow): Promise<{ outcome: AttemptOutcome; attempt: AttemptRecord }> {
    const at = isoTime(clock.now());
    const t0 = performance.now();
    let outcome: AttemptOutcome;
    try {
      outcome = await channels[row.kind].attempt(row);
    } catch (e) {
      outcome = { ok: false, statusCode: null, error: e instanceof Error ? e.message : String(e) };
    }
    return {
      outcome,
      attempt: {
        at,
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error,
        durationMs: Math.round((performance.now() - t0) * 10) / 10,
      },
    };
  }

  /** One attempt at a row; `answered` is told as soon as the attempt is over, before it is recorded (its slot is free then). */
  async function deliver(row: ClaimedRow, answered: () => void): Promise<void> {
    const channel = channels[row.kind];
    const { outcome, attempt } = await attemptRow(row);
    answered();
    if (outcome.ok) {
      count(channel.transport, row.kind, "sent");
      return record(row.id, attempt, { status: "sent" });
    }
    const now = clock.now();
    const delay = outcome.final ? null : channel.retryIn(row, outcome, now);
    const next: NextStep =
      delay === null
        ? { status: "failed", alert: alertFor(row, outcome) }
        : { status: "pending", nextAttemptAt: isoTime(now + delay) };
    count(channel.transport, row.kind, delay === null ? "failed" : "retry");
    await record(row.id, attempt, next);
    // One line per failed attempt: which row, where, what happened. Never a recipient, a URL's path or a
    // payload: a receiver's answer may echo the payload (its `logged` summary goes instead), and the
    // logger redacts the addresses an SMTP server's reply quotes.
    log.warn("delivery attempt failed", {
      outboxId: row.id,
      kind: row.kind,
      transport: channel.transport,
      ...(row.webhook_id ? { webhookId: row.webhook_id, host: safeHost(row.webhook_url) } : {}),
      attempt: row.attempts + 1,
      status: outcome.statusCode,
      error: outcome.logged ?? outcome.error,
      ...(delay === null ? { final: true } : { retryInSeconds: Math.round(delay / 100) / 10 }),
    });
  }

  async function drainLoop(): Promise<void> {
    const running = new Set<Promise<void>>();
    const claimed: Record<TransportName, ClaimedRow[]> = { smtp: [], http: [] };
    // A claim that came back short took every due row of its transport: nothing more is due there
    // until something is queued (a poke) or a retry falls due (the next drain). Without this, each
    // finished send claimed again, and a transport with nothing due read past every other kind's
    // due rows each time (a claim per email, each reading the whole backlog).
    const exhausted: Record<TransportName, boolean> = { smtp: false, http: false };
    let busy = false;
    for (;;) {
      if (poked) exhausted.smtp = exhausted.http = false;
      poked = false;
      if (!stopped) {
        for (const transport of TRANSPORTS) {
          if (inFlight[transport] >= IN_FLIGHT[transport]) continue;
          if (claimed[transport].length === 0 && !busy && !exhausted[transport]) {
            try {
              claimed[transport] = await repo.claimDue(readyKinds(transport), isoTime(clock.now()), CLAIM[transport]);
              exhausted[transport] = claimed[transport].length < CLAIM[transport];
            } catch (e) {
              // Another process holds the write lock: send what is claimed, then look again in a second.
              if (!isDatabaseBusy(e)) throw e;
              busy = true;
            }
          }
          while (inFlight[transport] < IN_FLIGHT[transport] && claimed[transport].length) {
            const row = claimed[transport].shift()!;
            inFlight[transport] += 1;
            const answered = () => {
              inFlight[transport] -= 1;
              wake();
            };
            // Running until its attempt is recorded: a stop waits for that too.
            const sending: Promise<void> = deliver(row, answered)
              .catch((e) =>
                log.error("delivery failed to record", {
                  outboxId: row.id,
                  error: e instanceof Error ? e.message : String(e),
                }),
              )
              .finally(() => {
                running.delete(sending);
                wake();
              });
            running.add(sending);
          }
        }
      }
      if (stopped) {
        const unsent = [...claimed.smtp, ...claimed.http].map((r) => r.id);
        claimed.smtp = [];
        claimed.http = [];
        if (unsent.length) await retryWhileBusy(() => repo.release(unsent), MARK_WAIT_MS);
      }
      if (running.size === 0) break;
      // Until a send finishes (a slot frees) or something new is queued. Not a race over the running
      // deliveries: each turn would subscribe to every one of them again (dozens while their records
      // wait for a batch), a reaction per delivery per turn.
      if (!woken) await new Promise<void>((r) => (poke = r));
      poke = null;
      woken = false;
    }
    await scheduleNextRetry(busy ? 1000 : 0);
  }

  /** Sends every due row; one drain at a time (a call during a drain makes it look for new rows at once). */
  function drain(): Promise<void> {
    if (stopped || !started) return Promise.resolve();
    if (draining) {
      poked = true;
      wake();
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
    /** The submit pipeline's hook: after a commit that queued messages, send them now rather than at the next scheduled drain. */
    afterCommit(committed: Pick<Committed, "queued">): void {
      if (committed.queued > 0) setTimeout(() => void drain(), 0);
    },

    drain,

    /** Rows whose sender's lease ran out (it died mid-send) go back to the queue; how many did. */
    releaseExpired: (): Promise<number> => repo.releaseStale(isoTime(clock.now()), false),

    /**
     * At start-up: release rows a dead process left mid-send (or whose claim or sent mark, committed
     * without a sync of the log, a power cut undid: they are pending or `sending` again, and go out
     * again), say what cannot go out yet, and send what is due.
     */
    async start(): Promise<void> {
      started = true;
      const released = await repo.releaseStale(isoTime(clock.now()), soleSender);
      if (released) log.warn("released outbox rows left mid-send by a previous run", { count: released });
      await repo.makePendingDue(DUE_AT_START, isoTime(clock.now()));
      for (const warning of await notReady()) log.warn(warning);
      void drain();
    },

    /** Stops claiming and waits for sends in progress, so nothing is left half-sent. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(wakeUp);
      wake();
      await draining;
    },

    /** Sends a row the caller has claimed, once, now, and records the attempt: sent, or failed without retries (a webhook's test event). */
    async sendOnce(row: ClaimedRow): Promise<boolean> {
      const { outcome, attempt } = await attemptRow(row);
      await record(row.id, attempt, { status: outcome.ok ? "sent" : "failed" });
      return outcome.ok;
    },

    list(status: OutboxStatus | null, limit = 100, kind: OutboxKind | null = null) {
      return repo.list(status, limit, kind);
    },

    /** One row with every attempt it has had. */
    async show(id: number) {
      const row = await repo.findById(id);
      if (!row) throw new AppError("NOT_FOUND", `no outbox row with id ${id}`);
      return { row, attempts: await repo.attemptsOf(id) };
    },

    /** Queues failed rows again: one by id, or all. */
    async retry(id: number | null): Promise<number> {
      if (id !== null) {
        const row = await repo.findById(id);
        if (!row) throw new AppError("NOT_FOUND", `no outbox row with id ${id}`);
        if (row.status !== "failed") throw new AppError("CONFLICT", `outbox row ${id} is ${row.status}, not failed`);
      }
      return repo.requeue(id, isoTime(clock.now()));
    },

    /** Rows not yet sent, by kind, and when the longest-waiting one fell due. */
    counts: () => repo.counts(),
    oldestDue: () => repo.oldestDue(),

    /** Attempts by transport, kind and outcome since start (for /metrics). */
    outcomes(): { transport: TransportName; kind: OutboxKind; outcome: DeliveryOutcome; value: number }[] {
      return [...outcomes].map(([key, value]) => {
        const [transport, kind, outcome] = key.split("\t") as [TransportName, OutboxKind, DeliveryOutcome];
        return { transport, kind, outcome, value };
      });
    },

    /** Forgets autoresponse throttle entries older than `windowMs`. */
    forgetAutoresponsesBefore(windowMs: number): Promise<number> {
      return repo.deleteAutoresponseSlotsBefore(isoTime(clock.now() - windowMs));
    },

    /** Deletes sent and failed rows older than `maxAgeMs`. */
    deleteOldRows(maxAgeMs: number): Promise<number> {
      return repo.deleteOldOutboxRows(isoTime(clock.now() - maxAgeMs));
    },
  };
}

export type OutboxService = ReturnType<typeof createOutboxService>;

const safeHost = (url: string | null) => {
  try {
    return url ? new URL(url).host : null;
  } catch {
    return null;
  }
};

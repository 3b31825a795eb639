import type { ClaimedRow } from "./repo";

/** The outbox's transports: SMTP for mail, HTTP for webhooks. */
export type TransportName = "smtp" | "http";

/**
 * What one attempt came to. A failure may ask to wait (`retryAfterMs`) or say that trying again is
 * pointless (`final`). Its `error` is kept for the owner to read (`outbox show`, a webhook's
 * deliveries); `logged`, when given, is what the log says instead (no words of the receiver's,
 * which may echo the submission back).
 */
export type AttemptOutcome =
  | { ok: true; statusCode: number | null }
  | { ok: false; statusCode: number | null; error: string; retryAfterMs?: number; final?: boolean; logged?: string };

export type Failure = Extract<AttemptOutcome, { ok: false }>;

/**
 * How one kind of outbox row goes out: through which transport, whether it can go out at all right
 * now (SMTP configured, a public URL for confirmation links), one attempt at sending a row, and
 * when to try again after a failure (null: the row has failed for good).
 */
export interface Channel {
  transport: TransportName;
  ready(): boolean;
  attempt(row: ClaimedRow): Promise<AttemptOutcome>;
  retryIn(row: ClaimedRow, failure: Failure, now: number): number | null;
}

// Backoff doubles from the base up to this cap, so a day-long outage is retried about hourly.
const MAX_MAIL_DELAY_MS = 60 * 60 * 1000;

/** Mail: exponential backoff from `baseSeconds` (capped at an hour) until `hours` after the row was queued. */
export const mailRetry =
  (baseSeconds: number, hours: number) =>
  (row: ClaimedRow, _failure: Failure, now: number): number | null =>
    now - Date.parse(row.queued_at) >= hours * 3_600_000
      ? null
      : Math.min(MAX_MAIL_DELAY_MS, baseSeconds * 1000 * 2 ** row.attempts);

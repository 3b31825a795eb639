import { Command } from "commander";
import { AppError } from "../lib/errors";
import { isOutboxKind, isWebhookKind, OUTBOX_KINDS, type OutboxKind } from "../modules/outbox/kinds";
import type { OutboxStatus } from "../modules/outbox/repo";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, fields, table } from "./output";

const STATUSES = ["pending", "sending", "sent", "failed"];

const wholeId = (id: string) => {
  if (!/^\d+$/.test(id)) throw new AppError("INVALID_PARAMETER", "outbox id must be a whole number");
  return Number(id);
};

export function outboxCommand(): Command {
  const outbox = new Command("outbox")
    .description(
      "everything formsvc sends (owner notifications and digests, autoresponses, confirmation and password reset emails, webhook deliveries, alerts): see and retry the queue",
    )
    .addHelpText(
      "after",
      examples((me) => [
        `${me} outbox list --status failed`,
        `${me} outbox show 42`,
        `${me} outbox retry 42`,
        `${me} outbox retry --all-failed`,
      ]),
    );

  outbox
    .command("list")
    .description("list queued, sent and failed messages, newest first, with the last error of each")
    .option("--status <status>", "pending, sending, sent or failed")
    .option("--kind <kind>", OUTBOX_KINDS.join(", "))
    .option("--limit <n>", "at most this many", "100")
    .option("--json", "print only JSON")
    .action((opts: { status?: string; kind?: string; limit: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        if (opts.status && !STATUSES.includes(opts.status))
          throw new AppError("INVALID_PARAMETER", `--status must be one of ${STATUSES.join(", ")}`);
        if (opts.kind && !isOutboxKind(opts.kind))
          throw new AppError("INVALID_PARAMETER", `--kind must be one of ${OUTBOX_KINDS.join(", ")}`);
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new AppError("INVALID_PARAMETER", "--limit must be a positive whole number");
        const rows = (
          await s.outbox.list((opts.status as OutboxStatus) ?? null, limit, (opts.kind as OutboxKind) ?? null)
        ).map((r) => ({
          id: r.id,
          kind: r.kind,
          formId: r.form_id,
          submissionId: r.submission_id,
          recipient: r.recipient,
          status: r.status,
          attempts: r.attempts,
          nextAttemptAt: r.next_attempt_at,
          lastStatus: r.last_status,
          lastError: r.last_error,
          sentAt: r.sent_at,
          ...(r.message_id ? { webhookId: r.webhook_id, deliveryId: r.message_id } : {}),
        }));
        emit(!!opts.json, rows, () =>
          rows.length === 0
            ? "The outbox is empty."
            : table(
                ["ID", "KIND", "STATUS", "TO", "FORM", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR"],
                rows.map((r) => [
                  r.id,
                  r.kind,
                  r.status,
                  isWebhookKind(r.kind) ? host(r.recipient) : r.recipient,
                  r.formId,
                  r.attempts,
                  r.status === "pending" ? r.nextAttemptAt : "",
                  r.lastError,
                ]),
              ),
        );
      }),
    );

  outbox
    .command("show")
    .description("one message with every attempt: when, the status code or error, how long it took")
    .argument("<id>", "outbox row id, as `outbox list` shows it")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const { row, attempts } = await s.outbox.show(wholeId(id));
        const value = {
          id: row.id,
          kind: row.kind,
          formId: row.form_id,
          submissionId: row.submission_id,
          recipient: row.recipient,
          status: row.status,
          createdAt: row.created_at,
          nextAttemptAt: row.next_attempt_at,
          lastStatus: row.last_status,
          lastError: row.last_error,
          sentAt: row.sent_at,
          ...(row.message_id ? { webhookId: row.webhook_id, deliveryId: row.message_id } : {}),
          attempts,
        };
        emit(!!opts.json, value, () =>
          [
            fields([
              ["id", row.id],
              ["kind", row.kind],
              ["status", row.status],
              ["to", isWebhookKind(row.kind) ? host(row.recipient) : row.recipient],
              ["form", row.form_id],
              ["submission", row.submission_id],
              ["created", row.created_at],
              ["next attempt", row.status === "pending" ? row.next_attempt_at : ""],
              ["last error", row.last_error],
            ]),
            "",
            attempts.length
              ? table(
                  ["AT", "STATUS", "MS", "ERROR"],
                  attempts.map((a) => [a.at, a.statusCode, a.durationMs, a.error]),
                )
              : "No attempt yet.",
          ].join("\n"),
        );
      }),
    );

  outbox
    .command("retry")
    .description("queue failed messages again (a running server sends them within seconds)")
    .argument("[id]", "outbox row id, as `outbox list` shows it")
    .option("--all-failed", "every failed message")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} outbox retry 42`, `${me} outbox retry --all-failed`]),
    )
    .action((id: string | undefined, opts: { allFailed?: boolean; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        if (!id === !opts.allFailed) throw new AppError("INVALID_PARAMETER", "name one outbox id, or --all-failed");
        const requeued = await s.outbox.retry(id === undefined ? null : wholeId(id));
        emit(!!opts.json, { requeued }, () => `Queued ${requeued} message(s) again.`);
      }),
    );

  return outbox;
}

/** A webhook URL as the table shows it: its host (Slack's and Discord's paths are secrets). */
function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

import { Command } from "commander";
import { AppError } from "../lib/errors";
import type { OutboxStatus } from "../modules/notifications/repo";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, table } from "./output";

const STATUSES = ["pending", "sending", "sent", "failed"];

export function outboxCommand(): Command {
  const outbox = new Command("outbox")
    .description("owner notification emails: see and retry the queue")
    .addHelpText("after", examples((me) => [`${me} outbox list --status failed`, `${me} outbox retry 42`, `${me} outbox retry --all-failed`]));

  outbox
    .command("list")
    .description("list queued, sent and failed notifications, newest first")
    .option("--status <status>", "pending, sending, sent or failed")
    .option("--limit <n>", "at most this many", "100")
    .option("--json", "print only JSON")
    .action((opts: { status?: string; limit: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, (s) => {
        if (opts.status && !STATUSES.includes(opts.status)) throw new AppError("INVALID_PARAMETER", `--status must be one of ${STATUSES.join(", ")}`);
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new AppError("INVALID_PARAMETER", "--limit must be a positive whole number");
        const rows = s.notifications.list((opts.status as OutboxStatus) ?? null, limit).map((r) => ({
          id: r.id, formId: r.form_id, submissionId: r.submission_id, recipient: r.recipient, status: r.status,
          attempts: r.attempts, nextAttemptAt: r.next_attempt_at, lastError: r.last_error, sentAt: r.sent_at,
        }));
        emit(!!opts.json, rows, () =>
          rows.length === 0
            ? "The outbox is empty."
            : table(["ID", "STATUS", "TO", "FORM", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR"], rows.map((r) => [r.id, r.status, r.recipient, r.formId, r.attempts, r.status === "pending" ? r.nextAttemptAt : "", r.lastError])),
        );
      }),
    );

  outbox
    .command("retry")
    .description("queue failed notifications again (a running server sends them within seconds)")
    .argument("[id]", "outbox row id, as `outbox list` shows it")
    .option("--all-failed", "every failed notification")
    .option("--json", "print only JSON")
    .addHelpText("after", examples((me) => [`${me} outbox retry 42`, `${me} outbox retry --all-failed`]))
    .action((id: string | undefined, opts: { allFailed?: boolean; json?: boolean }, cmd: Command) =>
      withServices(cmd, (s) => {
        if (!id === !opts.allFailed) throw new AppError("INVALID_PARAMETER", "name one outbox id, or --all-failed");
        if (id !== undefined && !/^\d+$/.test(id)) throw new AppError("INVALID_PARAMETER", "outbox id must be a whole number");
        const requeued = s.notifications.retry(id === undefined ? null : Number(id));
        emit(!!opts.json, { requeued }, () => `Queued ${requeued} notification(s) again.`);
      }),
    );

  return outbox;
}

import { Command } from "commander";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
import { toCreatedWebhookJson, toWebhookJson, WEBHOOK_FORMATS } from "../modules/webhooks/model";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, fields, table } from "./output";

const LIMIT = /^(100|[1-9][0-9]?)$/;

export function webhooksCommand(): Command {
  const webhooks = new Command("webhooks")
    .description("send each submission of a form to a URL: your service (signed, Standard Webhooks), Slack or Discord")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} webhooks add frm_… --url https://api.example.com/hooks/formsvc`,
        `${me} webhooks add frm_… --url https://hooks.slack.com/services/… --format slack`,
        `${me} webhooks list frm_…`,
        `${me} webhooks test whk_…`,
        `${me} webhooks deliveries whk_…`,
        `${me} webhooks replay msg_…`,
      ]),
    );

  webhooks
    .command("add")
    .description("add a webhook to a form; a standard one's signing secret is shown here only")
    .argument("<formId>", "form id")
    .requiredOption("--url <url>", "where to POST: http(s), on a public address")
    .option("--format <format>", `${WEBHOOK_FORMATS.join(", ")} (default standard)`, "standard")
    .option("--json", "print only JSON")
    .action((formId: string, opts: { url: string; format: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const hook = await s.webhooks.addWebhook(OPERATOR, formId, { url: opts.url, format: opts.format });
        const json = toCreatedWebhookJson(hook);
        emit(!!opts.json, json, () =>
          [
            `Added ${hook.format} webhook ${hook.id} to form ${hook.formId}: ${hook.url}`,
            ...(hook.secret
              ? [
                  "",
                  "Signing secret (shown only now; verify every delivery with it, e.g. with the standardwebhooks library):",
                  "",
                  `  ${hook.secret}`,
                ]
              : []),
          ].join("\n"),
        );
      }),
    );

  webhooks
    .command("list")
    .description("list webhooks (of one form, or of all), oldest first; never the secrets")
    .argument("[formId]", "only this form's")
    .option("--json", "print only JSON")
    .action((formId: string | undefined, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const list = (await s.webhooks.listWebhooks(OPERATOR, formId ?? null)).map(toWebhookJson);
        emit(!!opts.json, list, () =>
          list.length === 0
            ? "No webhooks."
            : table(
                ["ID", "FORM", "FORMAT", "ENABLED", "URL", "CREATED"],
                list.map((w) => [
                  w.id,
                  w.formId,
                  w.format,
                  w.enabled ? "yes" : `no: ${w.disabledReason}`,
                  w.url,
                  w.createdAt,
                ]),
              ),
        );
      }),
    );

  webhooks
    .command("remove")
    .description("remove a webhook with its deliveries (pending ones are not sent)")
    .argument("<id>", "webhook id")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const hook = await s.webhooks.removeWebhook(OPERATOR, id);
        emit(!!opts.json, { id: hook.id, deleted: true }, () => `Removed webhook ${hook.id} (${hook.url}).`);
      }),
    );

  webhooks
    .command("test")
    .description(
      "send a test event now, through the same signing, address checks and timeout as deliveries; exits non-zero when the receiver does not accept it",
    )
    .argument("<id>", "webhook id")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const { delivery, ok } = await s.webhooks.testWebhook(OPERATOR, id);
        emit(!!opts.json, delivery, () =>
          ok
            ? `The receiver accepted the test event (HTTP ${delivery.lastStatus}); delivery ${delivery.id}.`
            : `The receiver did not accept the test event: ${delivery.lastError}`,
        );
        if (!ok) throw new AppError("UNAVAILABLE", `webhook test failed: ${delivery.lastError}`);
      }),
    );

  webhooks
    .command("deliveries")
    .description("a webhook's deliveries, newest first, with attempts, the last HTTP status and the last error")
    .argument("<id>", "webhook id")
    .option("--limit <n>", "at most this many, 1 to 100", "50")
    .option("--json", "print only JSON")
    .action((id: string, opts: { limit: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        if (!LIMIT.test(opts.limit))
          throw new AppError("INVALID_PARAMETER", "--limit must be a whole number from 1 to 100");
        const list = await s.webhooks.deliveries(OPERATOR, id, Number(opts.limit));
        emit(!!opts.json, list, () =>
          list.length === 0
            ? "No deliveries yet."
            : table(
                ["ID", "STATUS", "ATTEMPTS", "LAST STATUS", "CREATED", "NEXT ATTEMPT", "LAST ERROR"],
                list.map((d) => [d.id, d.status, d.attempts, d.lastStatus, d.createdAt, d.nextAttemptAt, d.lastError]),
              ),
        );
      }),
    );

  webhooks
    .command("replay")
    .description("send a delivery again, with the same webhook-id (a running server sends it within seconds)")
    .argument("<deliveryId>", "delivery id (msg_…), as `webhooks deliveries` shows it")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const delivery = await s.webhooks.replay(OPERATOR, id);
        emit(
          !!opts.json,
          delivery,
          () =>
            `Queued delivery ${delivery.id} again.\n\n${fields([
              ["status", delivery.status],
              ["attempts so far", delivery.attempts],
              ["next attempt", delivery.nextAttemptAt],
            ])}`,
        );
      }),
    );

  return webhooks;
}

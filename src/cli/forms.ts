import { Command } from "commander";
import { AppError } from "../lib/errors";
import { CHALLENGES, FORM_TYPES, toFormJson, type Form } from "../modules/forms/model";
import type { FormInput } from "../modules/forms/service";
import { withServices } from "./context";
import { examples, invocation } from "./hints";
import { emit, fields, table } from "./output";

interface FormFlags {
  name?: string;
  type?: string;
  /** false from --no-description: clears it. */
  description?: string | false;
  emailNotifications?: boolean;
  developerNotifications?: boolean;
  usersJoined?: boolean;
  /** Comma-separated; false from --no-allowed-origins: any origin. */
  allowedOrigins?: string | false;
  /** false from --no-honeypot. */
  honeypot?: string | false;
  challenge?: string;
  retentionDays?: string;
  /** false from --no-retention: keep submissions forever. */
  retention?: boolean;
  json?: boolean;
}

function retentionOf(o: FormFlags): number | null | undefined {
  if (o.retentionDays !== undefined && o.retention === false) throw new AppError("INVALID_PARAMETER", "give --retention-days or --no-retention, not both");
  if (o.retention === false) return null;
  if (o.retentionDays === undefined) return undefined;
  if (!/^\d+$/.test(o.retentionDays)) throw new AppError("INVALID_PARAMETER", "--retention-days must be a whole number of days");
  return Number(o.retentionDays);
}

const toInput = (o: FormFlags): FormInput => ({
  name: o.name,
  formType: o.type,
  description: o.description === false ? "" : o.description,
  emailEnabled: o.emailNotifications,
  developerNotifications: o.developerNotifications,
  usersJoinedEnabled: o.usersJoined,
  allowedOrigins: o.allowedOrigins === undefined ? undefined : o.allowedOrigins === false ? [] : o.allowedOrigins.split(",").filter((v) => v.trim() !== ""),
  honeypotField: o.honeypot === false ? null : o.honeypot,
  challenge: o.challenge,
  retentionDays: retentionOf(o),
});

function describe(form: Form): string {
  const f = toFormJson(form);
  return fields([
    ["id", f.id],
    ["name", f.name],
    ["description", f.description],
    ["type", f.formType],
    ["submissions", f.submissionCount],
    ["email notifications", f.emailSettings.enabled ? "on" : "off"],
    ["developer notifications", f.emailSettings.developerNotificationsEnabled ? "on" : "off"],
    ...(f.usersJoinedSettings ? ([["users joined", f.usersJoinedSettings.enabled ? f.usersJoinedSettings.count : "counter off"]] as [string, unknown][]) : []),
    ["allowed origins", f.allowedOrigins.length ? f.allowedOrigins.join(", ") : "any"],
    ["honeypot field", f.spamSettings.honeypotField ?? "none"],
    ["challenge", f.spamSettings.challenge],
    ["retention", f.retentionDays === null ? "forever" : `${f.retentionDays} day(s)`],
    ["created", f.createdAt],
    ["updated", f.updatedAt],
  ]);
}

const settingFlags = (cmd: Command, withNegations: boolean) => {
  cmd
    .option("--description <text>", "shown to no one but you")
    .option("--email-notifications", "master switch for email on this form")
    .option("--developer-notifications", "email the owner on every submission (needs --email-notifications)")
    .option("--users-joined", "count distinct joiners (waitlist forms)")
    .option("--allowed-origins <urls>", "origins whose pages may submit with a publishable key, comma-separated (https://www.example.com); redirects only to them")
    .option("--honeypot <name>", "a hidden field people leave empty: a submission that fills it is stored as spam (default _gotcha)")
    .option("--no-honeypot", "no honeypot field")
    .option("--challenge <kind>", `what a submission must solve: ${CHALLENGES.join(", ")} (default none)`)
    .option("--retention-days <n>", "delete submissions older than this many days (checked every hour by serve)")
    .option("--no-retention", "keep submissions forever (the default)");
  if (withNegations)
    cmd
      .option("--no-description", "clear the description")
      .option("--no-email-notifications", "turn all email for this form off")
      .option("--no-developer-notifications", "stop emailing the owner on every submission")
      .option("--no-users-joined", "stop counting joiners (the API then shows 0)")
      .option("--no-allowed-origins", "accept publishable-key submissions from any origin again");
  return cmd.option("--json", "print only JSON");
};

export function formsCommand(): Command {
  const forms = new Command("forms")
    .description("create, list, show, update and delete forms")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} forms create --owner you@example.com --name Contact --type contact --email-notifications --developer-notifications`,
        `${me} forms list --owner you@example.com`,
        `${me} forms show frm_… --json`,
        `${me} forms update frm_… --no-developer-notifications`,
        `${me} forms update frm_… --allowed-origins https://www.example.com --challenge pow`,
        `${me} forms update frm_… --retention-days 90`,
        `${me} forms delete frm_… --yes`,
      ]),
    );

  settingFlags(
    forms
      .command("create")
      .description("create a form for an owner (the owner is created if new)")
      .requiredOption("--owner <email>", "owner's email address; receives notifications")
      .requiredOption("--name <name>", "form name")
      .option("--type <type>", `one of ${FORM_TYPES.join(", ")}`, "custom"),
    false,
  )
    .addHelpText("after", examples((me) => [`${me} forms create --owner you@example.com --name "Launch waitlist" --type waitlist --users-joined`]))
    .action((opts: FormFlags & { owner: string; name: string }, cmd: Command) =>
      withServices(cmd, (s) => {
        const form = s.forms.createForm({ ...toInput(opts), owner: opts.owner, name: opts.name });
        emit(!!opts.json, toFormJson(form), () => `Created form ${form.id}\n\n${describe(form)}`);
      }),
    );

  forms
    .command("list")
    .description("list forms, newest first")
    .option("--owner <email>", "only this owner's forms")
    .option("--json", "print only JSON")
    .action((opts: { owner?: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, (s) => {
        const list = s.forms.listAllForms({ owner: opts.owner });
        emit(!!opts.json, list.map((f) => ({ ...toFormJson(f), owner: f.ownerEmail })), () =>
          list.length === 0
            ? `No forms yet. Create one: ${invocation()} forms create --owner you@example.com --name Contact --type contact`
            : table(["ID", "NAME", "TYPE", "OWNER", "SUBMISSIONS", "CREATED"], list.map((f) => [f.id, f.name, f.formType, f.ownerEmail, f.submissionCount, f.createdAt])),
        );
      }),
    );

  forms
    .command("show")
    .description("show one form, as GET /api/v1/forms/{formId} does")
    .argument("<id>", "form id")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, (s) => {
        const form = s.forms.requireForm(id);
        emit(!!opts.json, toFormJson(form), () => describe(form));
      }),
    );

  settingFlags(
    forms
      .command("update")
      .description("change a form; only the flags given change (--no-… turns a switch off)")
      .argument("<id>", "form id")
      .option("--name <name>", "form name")
      .option("--type <type>", `one of ${FORM_TYPES.join(", ")}`),
    true,
  )
    .addHelpText("after", examples((me) => [`${me} forms update frm_… --email-notifications --developer-notifications`]))
    .action((id: string, opts: FormFlags, cmd: Command) =>
      withServices(cmd, (s) => {
        const form = s.forms.updateForm(id, toInput(opts));
        emit(!!opts.json, toFormJson(form), () => `Updated form ${form.id}\n\n${describe(form)}`);
      }),
    );

  forms
    .command("delete")
    .description("delete a form and all its submissions")
    .argument("<id>", "form id")
    .option("--yes", "confirm: this cannot be undone")
    .option("--json", "print only JSON")
    .action((id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        if (!opts.yes) throw new AppError("INVALID_PARAMETER", `this deletes form ${id} and all its submissions; add --yes to confirm`);
        const form = await s.lifecycle.deleteForm(id);
        emit(!!opts.json, { id: form.id, deleted: true }, () => `Deleted form ${form.id} ("${form.name}") and its ${form.submissionCount} submission(s).`);
      }),
    );

  return forms;
}

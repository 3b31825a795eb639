import { Command } from "commander";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
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
  autoresponseSubject?: string;
  autoresponseText?: string;
  /** true from --autoresponse, false from --no-autoresponse. */
  autoresponse?: boolean;
  doubleOptIn?: boolean;
  /** false from --no-confirm-redirect-url. */
  confirmRedirectUrl?: string | false;
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
  autoresponse:
    o.autoresponse === undefined && o.autoresponseSubject === undefined && o.autoresponseText === undefined
      ? undefined
      : { enabled: o.autoresponse, subject: o.autoresponseSubject, text: o.autoresponseText },
  doubleOptIn: o.doubleOptIn,
  confirmRedirectUrl: o.confirmRedirectUrl === false ? null : o.confirmRedirectUrl,
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
    ["autoresponse", f.autoresponse.enabled ? `on: "${f.autoresponse.subject}"` : "off"],
    ...(f.formType === "waitlist"
      ? ([
          ["double opt-in", f.doubleOptIn ? "on" : "off"],
          ["after confirming", f.confirmRedirectUrl ?? "formsvc's page"],
        ] as [string, unknown][])
      : []),
    ["retention", f.retentionDays === null ? "forever" : `${f.retentionDays} day(s)`],
    ["created", f.createdAt],
    ["updated", f.updatedAt],
  ]);
}

/** Double opt-in links start with FORMSVC_PUBLIC_URL: say so (on stderr) when this command's settings have none. */
function warnWithoutPublicUrl(form: Form, publicUrl: string): void {
  if (form.doubleOptIn && !publicUrl) {
    process.stderr.write("note: FORMSVC_PUBLIC_URL is not set here; the server needs it for confirmation links, and keeps confirmation emails queued until it has it\n");
  }
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
    .option("--autoresponse-subject <template>", "email each submitter (their extracted address, at most once an hour per form): the subject, {{field}} placeholders")
    .option("--autoresponse-text <template>", "the autoresponse's text, {{field}} placeholders (escaped in its HTML part); needs --email-notifications")
    .option("--double-opt-in", "waitlists: email each new joiner a confirmation link; only confirmed joiners count (needs FORMSVC_PUBLIC_URL on the server)")
    .option("--confirm-redirect-url <url>", "where an opened confirmation link sends the joiner (default: formsvc's own page)")
    .option("--retention-days <n>", "delete submissions older than this many days (checked every hour by serve)")
    .option("--no-retention", "keep submissions forever (the default)");
  if (withNegations)
    cmd
      .option("--no-description", "clear the description")
      .option("--no-email-notifications", "turn all email for this form off")
      .option("--no-developer-notifications", "stop emailing the owner on every submission")
      .option("--no-users-joined", "stop counting joiners (the API then shows 0)")
      .option("--no-allowed-origins", "accept publishable-key submissions from any origin again")
      .option("--autoresponse", "turn the autoresponse back on, with the subject and text it has")
      .option("--no-autoresponse", "stop emailing submitters (the templates are kept)")
      .option("--no-double-opt-in", "count every joiner again, confirmed or not")
      .option("--no-confirm-redirect-url", "show formsvc's own page after confirming");
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
        `${me} forms update frm_… --email-notifications --autoresponse-subject "Thanks, {{name}}" --autoresponse-text "We got your message and will answer soon."`,
        `${me} forms update frm_… --double-opt-in --confirm-redirect-url https://www.example.com/welcome`,
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
      withServices(cmd, async (s, deps) => {
        const form = await s.forms.createForm({ ...toInput(opts), owner: opts.owner, name: opts.name });
        warnWithoutPublicUrl(form, deps.config.publicUrl);
        emit(!!opts.json, toFormJson(form), () => `Created form ${form.id}\n\n${describe(form)}`);
      }),
    );

  forms
    .command("list")
    .description("list forms, newest first")
    .option("--owner <email>", "only this owner's forms")
    .option("--json", "print only JSON")
    .action((opts: { owner?: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const list = await s.forms.listAllForms({ owner: opts.owner });
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
      withServices(cmd, async (s) => {
        const form = await s.forms.requireForm(id);
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
      withServices(cmd, async (s, deps) => {
        const form = await s.forms.updateForm(id, toInput(opts));
        warnWithoutPublicUrl(form, deps.config.publicUrl);
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
        const form = await s.lifecycle.deleteForm(OPERATOR, id);
        emit(!!opts.json, { id: form.id, deleted: true }, () => `Deleted form ${form.id} ("${form.name}") and its ${form.submissionCount} submission(s).`);
      }),
    );

  return forms;
}

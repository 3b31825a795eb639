import { Command, Option } from "commander";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
import type { Form } from "../modules/forms/model";
import { setAt, valueAt } from "../lib/dotted-path";
import {
  ALL_SETTINGS,
  cliHelp,
  toFormJson,
  WRITABLE_SETTINGS,
  type CliFlag,
  type SettingKey,
} from "../modules/forms/settings";
import { SettingsError } from "../modules/forms/setting-row";
import type { FormInput } from "../modules/forms/service";
import { withServices } from "./context";
import { examples, invocation } from "./hints";
import { emit, fields, table } from "./output";

/** The flags of one setting of the table, as commander declares them for a command. */
function flagsOf(
  key: SettingKey,
  cli: CliFlag | CliFlag[] | undefined,
  command: "create" | "update",
): { flag: CliFlag; positive: Option; negative?: Option }[] {
  return [cli ?? []].flat().flatMap((flag) => {
    if (flag.updateOnly && command === "create") return [];
    const positive = new Option(flag.flag, cliHelp(key, flag.hint));
    if (command === "create" && flag.create && "default" in flag.create) positive.default(flag.create.default);
    if (command === "create" && flag.create && "required" in flag.create) positive.makeOptionMandatory();
    const no =
      flag.no && (command === "update" || flag.no.onCreate)
        ? new Option(flag.no.flag ?? `--no-${positive.name()}`, flag.no.help)
        : undefined;
    return [{ flag, positive, negative: no }];
  });
}

/** Declares every setting's flags (settings.ts) on `forms create` or `forms update`, and --json. */
function settingFlags(cmd: Command, command: "create" | "update"): Command {
  for (const { key, row } of WRITABLE_SETTINGS) {
    for (const { positive, negative } of flagsOf(key, row.cli, command)) {
      cmd.addOption(positive);
      if (negative) cmd.addOption(negative);
    }
  }
  return cmd.option("--json", "print only JSON");
}

/** The flags given, as the service's input: each setting's value, or its cleared value from --no-…. */
function toInput(opts: Record<string, unknown>, command: "create" | "update"): FormInput {
  const input: Record<string, unknown> = {};
  for (const { key, row } of WRITABLE_SETTINGS) {
    for (const { flag, positive, negative } of flagsOf(key, row.cli, command)) {
      const given = opts[positive.attributeName()];
      // A lone --no-x defaults x to true in commander; only false means it was given.
      const cleared = negative !== undefined && opts[negative.attributeName()] === false;
      const set = given !== undefined && given !== false;
      if (set && cleared && negative!.attributeName() !== positive.attributeName()) {
        throw new AppError("INVALID_PARAMETER", `give ${positive.long} or ${negative!.long}, not both`);
      }
      if (cleared) setAt(input, row.field, flag.no!.value);
      else if (set) setAt(input, row.field, typeof given === "string" && flag.parse ? flag.parse(given) : given);
    }
  }
  return input as FormInput;
}

/** The service's answer; settings that are wrong are said with the flags that set them. */
async function withFlags<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    throw e instanceof SettingsError ? new AppError(e.code, e.cliMessage) : e;
  }
}

/** `forms show`: a line for each setting the table says how to show. */
function describe(form: Form): string {
  return fields(
    ALL_SETTINGS.flatMap(({ row }) =>
      row.show && (row.show.when?.(form) ?? true)
        ? [[row.show.label, row.show.text(valueAt(form, row.field) as never, form)] as [string, unknown]]
        : [],
    ),
  );
}

/** Double opt-in links start with FORMSVC_PUBLIC_URL: say so (on stderr) when this command's settings have none. */
function warnWithoutPublicUrl(form: Form, publicUrl: string): void {
  if (form.doubleOptIn && !publicUrl) {
    process.stderr.write(
      "note: FORMSVC_PUBLIC_URL is not set here; the server needs it for confirmation links, and keeps confirmation emails queued until it has it\n",
    );
  }
}

export function formsCommand(): Command {
  const forms = new Command("forms").description("create, list, show, update and delete forms").addHelpText(
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
      .requiredOption("--owner <email>", "owner's email address; receives notifications"),
    "create",
  )
    .addHelpText(
      "after",
      examples((me) => [
        `${me} forms create --owner you@example.com --name "Launch waitlist" --type waitlist --users-joined`,
      ]),
    )
    .action((opts: { owner: string; name: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s, deps) => {
        const form = await withFlags(
          s.forms.createForm(OPERATOR, { ...toInput(opts, "create"), owner: opts.owner, name: opts.name }),
        );
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
        const list = await s.forms.listAllForms(OPERATOR, { owner: opts.owner });
        emit(
          !!opts.json,
          list.map((f) => ({ ...toFormJson(f), owner: f.ownerEmail })),
          () =>
            list.length === 0
              ? `No forms yet. Create one: ${invocation()} forms create --owner you@example.com --name Contact --type contact`
              : table(
                  ["ID", "NAME", "TYPE", "OWNER", "SUBMISSIONS", "CREATED"],
                  list.map((f) => [f.id, f.name, f.formType, f.ownerEmail, f.submissionCount, f.createdAt]),
                ),
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
      .argument("<id>", "form id"),
    "update",
  )
    .addHelpText(
      "after",
      examples((me) => [`${me} forms update frm_… --email-notifications --developer-notifications`]),
    )
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s, deps) => {
        const form = await withFlags(s.forms.updateForm(OPERATOR, id, toInput(opts, "update")));
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
        if (!opts.yes)
          throw new AppError(
            "INVALID_PARAMETER",
            `this deletes form ${id} and all its submissions; add --yes to confirm`,
          );
        const form = await s.lifecycle.deleteForm(OPERATOR, id);
        emit(
          !!opts.json,
          { id: form.id, deleted: true },
          () => `Deleted form ${form.id} ("${form.name}") and its ${form.submissionCount} submission(s).`,
        );
      }),
    );

  return forms;
}

import { Command } from "commander";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
import { toFormJson } from "../modules/forms/settings";
import type { Services } from "../services";
import { configFor, withServices } from "./context";
import { curlExamples, examples, invocation, shellWord } from "./hints";
import { emit } from "./output";
import { askNewPassword, canPrompt, setPasswordHint } from "./password-input";
import { MIN_PASSWORD_LENGTH } from "../modules/accounts/password";

interface InitFlags {
  owner: string;
  force?: boolean;
  json?: boolean;
}

export function initCommand(): Command {
  return new Command("init")
    .description(
      "for scripts: create an owner, an API key and a sample contact form, and print how to use them (a person starts with the setup link `serve` prints)",
    )
    .requiredOption("--owner <email>", "your email address; notifications go here")
    .option("--force", "for an owner that already exists: create another API key and sample form anyway")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} init --owner you@example.com`, `${me} init --owner you@example.com --force`]),
    )
    .action((opts: InitFlags, cmd: Command) =>
      withServices(cmd, async (s) => {
        // Like `git init` run twice: an owner that exists is reported, not an error, and left as it is.
        const existing = await s.owners.findOwner(opts.owner);
        if (existing && !opts.force) return reportExisting(s, existing.email, !!opts.json);
        const key = await s.keys.createKey(OPERATOR, { owner: opts.owner, name: "default" });
        const form = await s.forms.createForm(OPERATOR, {
          owner: opts.owner,
          name: "Contact",
          formType: "contact",
          description: "Sample form created by formsvc init",
          emailEnabled: true,
          developerNotifications: true,
        });
        const config = configFor(cmd);
        const baseUrl = `http://${config.host}:${config.port}`;
        const examples = curlExamples(baseUrl, key.key, form.id);
        // A person at a terminal is offered a password now; a script is never kept waiting.
        const ask = !opts.json && canPrompt();
        // The browser's first run makes an owner of its own: say how this one reaches the dashboard instead.
        const note = `The dashboard shows this form to ${key.owner} alone, once it has a password (the setup link that serve prints makes a separate owner)`;
        const dashboard = existing ? [] : [ask ? `${note}.` : `${note}: ${setPasswordHint(key.owner)}`];
        emit(!!opts.json, { owner: key.owner, key, form: toFormJson(form), examples, created: true }, () =>
          [
            `Owner:   ${key.owner}`,
            `API key: ${key.key}`,
            "         (shown only this once: store it now)",
            `Form:    ${form.id} ("${form.name}", contact; an email per submission once FORMSVC_SMTP_URL is set)`,
            "",
            `Start the server:  ${invocation()} serve`,
            "",
            "Then try:",
            ...examples.map((e) => `  ${e.replaceAll("\n", "\n  ")}`),
            ...(dashboard.length ? ["", ...dashboard] : []),
          ].join("\n"),
        );
        if (opts.json && dashboard.length) process.stderr.write(`${dashboard.join("\n")}\n`);
        if (ask) await offerPassword(s, key.owner);
      }),
    );
}

/** Asks for a password at the terminal; Enter skips. A refusal leaves what init made, and says how to try again. */
async function offerPassword(s: Services, owner: string): Promise<void> {
  process.stderr.write("\n");
  try {
    const password = await askNewPassword(
      `A password to log in with (at least ${MIN_PASSWORD_LENGTH} characters; Enter to skip): `,
    );
    if (password) {
      await s.accounts.setPassword(owner, password);
      process.stderr.write(`Password set for ${owner}.\n`);
      return;
    }
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    process.stderr.write(`No password set: ${e.message}\n`);
  }
  process.stderr.write(`Set one later: ${setPasswordHint(owner)}\n`);
}

/** What an already-initialised owner has (active keys, forms), and how to get more; changes nothing. */
async function reportExisting(s: Services, owner: string, json: boolean): Promise<void> {
  const keys = (await s.keys.listKeys(OPERATOR, { owner })).filter((k) => k.active).length;
  const forms = (await s.forms.listAllForms(OPERATOR, { owner })).length;
  const me = invocation();
  const who = shellWord(owner);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  emit(json, { owner, created: false, keys, forms }, () =>
    [
      `Owner ${owner} already exists, with ${count(keys, "active API key")} and ${count(forms, "form")}; nothing was changed.`,
      "",
      `  a new API key:              ${me} keys create --owner ${who}`,
      `  a new key and sample form:  ${me} init --owner ${who} --force`,
      "",
      `Start the server:  ${me} serve`,
    ].join("\n"),
  );
}

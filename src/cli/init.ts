import { Command } from "commander";
import { toFormJson } from "../modules/forms/model";
import { configFor, withServices } from "./context";
import { curlExamples, examples, invocation } from "./hints";
import { emit } from "./output";

export function initCommand(): Command {
  return new Command("init")
    .description("first run: create an owner, an API key and a sample contact form, and print how to use them")
    .requiredOption("--owner <email>", "your email address; notifications go here")
    .option("--json", "print only JSON")
    .addHelpText("after", examples((me) => [`${me} init --owner you@example.com`]))
    .action((opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, (s) => {
        const key = s.keys.createKey({ owner: opts.owner, name: "default" });
        const form = s.forms.createForm({
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
        emit(!!opts.json, { owner: key.owner, key, form: toFormJson(form), examples }, () =>
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
          ].join("\n"),
        );
      }),
    );
}

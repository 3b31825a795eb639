import { Command } from "commander";
import { VERSION } from "../version";
import { auditCommand } from "./audit";
import { configCommand } from "./config";
import { formsCommand } from "./forms";
import { initCommand } from "./init";
import { keysCommand } from "./keys";
import { ownersCommand } from "./owners";
import { serveCommand } from "./serve";
import { serviceCommand } from "./service";
import { outboxCommand } from "./outbox";
import { mailCommand } from "./mail";
import { submissionsCommand } from "./submissions";
import { backupCommand, backupsCommand, restoreCommand } from "./backup";
import { copyToCommand } from "./copy-to";
import { spamCommand } from "./spam";
import { webhooksCommand } from "./webhooks";
import { inviteCommand } from "./teams-invite";
import { invocation } from "./hints";

/** The `formsvc` command line: one noun per file, each calling the same services as the HTTP API. */
export function buildProgram(): Command {
  const program = new Command("formsvc")
    .description("Self-hosted form backend: one executable with its database inside.")
    .version(VERSION, "-v, --version", "print the version")
    .option("--db <path>", "SQLite database file, or a postgres:// URL (FORMSVC_DB, default ./data/formsvc.db)")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .addHelpText("after", gettingStarted);

  for (const cmd of [
    initCommand(),
    serveCommand(),
    serviceCommand(),
    keysCommand(),
    formsCommand(),
    ownersCommand(),
    configCommand(),
    submissionsCommand(),
    spamCommand(),
    webhooksCommand(),
    backupCommand(),
    backupsCommand(),
    restoreCommand(),
    copyToCommand(),
    outboxCommand(),
    mailCommand(),
    auditCommand(),
    // Until src/cli/teams.ts (list, create, members, role, remove) takes invite in.
    new Command("teams").description("teams and their members").addCommand(inviteCommand()),
    helpCommand(),
  ])
    program.addCommand(cmd);
  program.commands.forEach(function exitOverrideAll(c: Command) {
    c.exitOverride();
    c.commands.forEach(exitOverrideAll);
  });
  return program;
}

/**
 * `help [command...]`: the help of the command the words name, at any depth (`help keys create`).
 * Commander's own help command reads only the first word and showed the group's help instead;
 * a command named `help` takes its place, and groups keep theirs (`keys help create`).
 */
function helpCommand(): Command {
  return new Command("help")
    .description("show the help of a command, e.g. help keys create")
    .argument("[command...]", "a command, or a group and one of its commands")
    .action((words: string[], _opts: unknown, cmd: Command) => {
      let target: Command = cmd.parent!;
      const named: string[] = [];
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next)
          target.error(
            `error: unknown command '${[...named, word].join(" ")}' (see: ${[invocation(), "help", ...named].join(" ")})`,
            { code: "commander.unknownCommand" },
          );
        named.push(word);
        target = next;
      }
      target.help();
    });
}

/** The top-level help's walk-through, the one first-run path, naming the command as the operator invoked it. */
function gettingStarted(): string {
  const me = invocation();
  return `
Getting started:
  ${me} serve
  1. open the setup link it prints (the dashboard is at http://127.0.0.1:3000/dashboard)
  2. set your email and password
  3. create a form
  4. copy its snippet into your page: the form posts to http://127.0.0.1:3000/f/{formId}
     (a form of your own works too: point its action at that address)

For scripts: ${me} init --owner EMAIL makes an owner, an API key and a sample form without the browser.
Every setting can also come from the environment (FORMSVC_*).`;
}

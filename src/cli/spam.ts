import { Command } from "commander";
import { OPERATOR } from "../lib/principal";
import type { FilterStatusJson } from "../modules/spam/model";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, fields } from "./output";

// What `spam status --json` prints, as the contract names it (the API's filingSince is the dashboard's).
const contractJson = ({ owner, spam, notSpam, filing }: FilterStatusJson) => ({ owner, spam, notSpam, filing });

const text = (s: FilterStatusJson) =>
  fields([
    ["owner", s.owner],
    ["learned spam", s.spam],
    ["learned not spam", s.notSpam],
    [
      "filing",
      s.filing
        ? `yes${s.filingSince ? `, since ${s.filingSince}` : ""}`
        : "not yet: it files spam once it has learned from 20 spam and 20 not-spam submissions",
    ],
  ]);

/** `formsvc spam status|reset --owner EMAIL`: what an owner's learning filter knows, and forgetting it. */
export function spamCommand(): Command {
  const spam = new Command("spam")
    .description("the learning spam filter of each owner: what it has learned from, and forgetting it")
    .addHelpText(
      "after",
      examples((me) => [`${me} spam status --owner you@example.com`, `${me} spam reset --owner you@example.com`]),
    );

  spam
    .command("status")
    .description(
      "how many submissions the owner's filter learned from as spam and as not spam, and whether it files spam yet",
    )
    .requiredOption("--owner <email>", "the owner")
    .option("--json", "print only JSON")
    .action((opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const status = await s.spam.filter.status(OPERATOR, { owner: opts.owner });
        emit(!!opts.json, contractJson(status), () => text(status));
      }),
    );

  spam
    .command("reset")
    .description("forget everything the owner's filter learned (a running server stops using it at once)")
    .requiredOption("--owner <email>", "the owner")
    .option("--json", "print only JSON")
    .action((opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const status = await s.spam.filter.reset(OPERATOR, { owner: opts.owner });
        emit(!!opts.json, contractJson(status), () => `forgot what the filter of ${status.owner} had learned`);
      }),
    );
  return spam;
}

import { Command } from "commander";
import type { KeyRole } from "../lib/rights";
import { OPERATOR } from "../lib/principal";
import { toKeyJson, toRevokedJson } from "../modules/keys/model";
import { withServices } from "./context";
import { examples, invocation } from "./hints";
import { emit, table } from "./output";

export function keysCommand(): Command {
  const keys = new Command("keys").description("create, list and revoke API keys").addHelpText(
    "after",
    examples((me) => [
      `${me} keys create --owner you@example.com --name server`,
      `${me} keys create --owner you@example.com --name website --publishable --forms frm_…`,
      `${me} keys list --owner you@example.com`,
      `${me} keys revoke key_…`,
    ]),
  );

  keys
    .command("create")
    .description("create an API key for an owner (the owner is created if new); the key is shown only once")
    .requiredOption("--owner <email>", "owner's email address")
    .option("--name <name>", "a label to recognise the key by", "default")
    .option(
      "--publishable",
      "a key for web pages (fpk_…): it may only submit and fetch challenges, rate limited per visitor",
    )
    .option("--forms <ids>", "bind the key to these forms (comma-separated ids); default: all the forms of its team")
    .option("--team <id>", "the team the key acts in (default: the owner's personal team)")
    .option("--role <role>", "what the key may do in its team: viewer, editor or admin", "admin")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} keys create --owner you@example.com --name server`,
        `${me} keys create --owner you@example.com --team tm_… --role viewer --name reports`,
        `${me} keys create --owner you@example.com --name website --publishable --forms frm_…,frm_…`,
      ]),
    )
    .action(
      (
        opts: {
          owner: string;
          name: string;
          publishable?: boolean;
          forms?: string;
          team?: string;
          role: string;
          json?: boolean;
        },
        cmd: Command,
      ) =>
        withServices(cmd, async (s) => {
          const forms = opts.forms === undefined ? undefined : opts.forms.split(",").filter((id) => id.trim() !== "");
          const key = await s.keys.createKey(OPERATOR, {
            owner: opts.owner,
            name: opts.name,
            publishable: opts.publishable,
            forms,
            teamId: opts.team,
            role: opts.role as KeyRole,
          });
          const scope =
            key.kind === "publishable"
              ? "Publishable: it may only submit (and fetch challenges), so it can sit in a web page."
              : "Secret: keep it on servers, never in a web page.";
          emit(!!opts.json, key, () =>
            [
              `Created ${key.kind} API key "${key.name}" (${key.id}) for ${key.owner}, ${key.role} in team ${key.teamId}${key.forms ? `, bound to ${key.forms.join(", ")}` : ""}:`,
              "",
              `  ${key.key}`,
              "",
              scope,
              key.kind === "secret"
                ? "Store it now: it is shown only this once."
                : "It is shown only this once; a lost key is replaced by a new one.",
            ].join("\n"),
          );
        }),
    );

  keys
    .command("list")
    .description("list API keys (never their secrets)")
    .option("--owner <email>", "only this owner's keys")
    .option("--json", "print only JSON")
    .action((opts: { owner?: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const list = (await s.keys.listKeys(OPERATOR, { owner: opts.owner })).map(toKeyJson);
        emit(!!opts.json, list, () =>
          list.length === 0
            ? `No API keys yet. Create one: ${invocation()} keys create --owner you@example.com`
            : table(
                ["ID", "NAME", "OWNER", "KIND", "FORMS", "PREFIX", "ACTIVE", "CREATED", "LAST USED"],
                list.map((k) => [
                  k.id,
                  k.name,
                  k.owner,
                  k.kind,
                  k.forms?.join(",") ?? "all",
                  `${k.prefix}…`,
                  k.active ? "yes" : "revoked",
                  k.createdAt,
                  k.lastUsedAt,
                ]),
              ),
        );
      }),
    );

  keys
    .command("revoke")
    .description("revoke an API key; a running server refuses it from the next request on")
    .argument("<id>", "key id, as `keys list` shows it")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const key = await s.keys.revokeKey(OPERATOR, id);
        emit(!!opts.json, toRevokedJson(key), () => `Revoked API key ${key.id} ("${key.name}", ${key.ownerEmail}).`);
      }),
    );

  return keys;
}

import { Command } from "commander";
import { AppError } from "../lib/errors";
import { personalTeamId } from "../lib/rights";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, table } from "./output";

const LIMIT = /^[1-9][0-9]{0,5}$/;

export function auditCommand(): Command {
  return new Command("audit")
    .description(
      "who changed what, newest first: keys created and revoked, forms created, changed and deleted, submissions deleted, moved, erased and expired, teams made, renamed and deleted, members' roles changed and members removed, logins (never a secret or submitted data)",
    )
    .option("--owner <email>", "only this owner's personal team's trail")
    .option("--team <id>", "only this team's trail")
    .option("--limit <n>", "at most this many events, newest first (1 to 999999)", "100")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} audit`, `${me} audit --owner you@example.com --json`]),
    )
    .action((opts: { owner?: string; team?: string; limit: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        if (!LIMIT.test(opts.limit))
          throw new AppError("INVALID_PARAMETER", "--limit must be a whole number from 1 to 999999");
        const owner = opts.owner === undefined ? null : await s.owners.findOwner(opts.owner);
        const teamId = opts.team ?? (owner && personalTeamId(owner.id));
        const events =
          opts.owner !== undefined && !owner ? [] : await s.audit.list({ teamId, limit: Number(opts.limit) });
        emit(!!opts.json, events, () =>
          events.length === 0
            ? "Nothing recorded yet."
            : table(
                ["TIME", "TEAM", "ACTOR", "ROLE", "ACTION", "OBJECT", "DETAIL"],
                events.map((e) => [
                  e.at,
                  e.teamId,
                  [e.actorKind === e.actorId ? e.actorKind : `${e.actorKind} ${e.actorId}`, e.actorEmail]
                    .filter(Boolean)
                    .join(" "),
                  e.actorRole,
                  e.action,
                  e.objectId,
                  e.detail &&
                    Object.entries(e.detail)
                      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(",") : v}`)
                      .join(" "),
                ]),
              ),
        );
      }),
    );
}

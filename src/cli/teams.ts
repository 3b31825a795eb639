import { Command } from "commander";
import { inviteCommand } from "./teams-invite";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
import { ROLES, type Role } from "../lib/rights";
import type { Services } from "../services";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, table } from "./output";

/** The owner an `--owner EMAIL` names: a 404 for one never named, as the API's member routes answer. */
async function ownerNamed(s: Services, email: string) {
  const owner = await s.owners.findOwner(email);
  if (!owner) throw new AppError("NOT_FOUND", `there is no owner ${email}`);
  return owner;
}

function checkedRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role))
    throw new AppError("INVALID_PARAMETER", `role must be ${ROLES.join(", ")}`);
  return role as Role;
}

/**
 * `formsvc teams`: the operator's view of teams and their members, through the same service as the
 * API (the operator holds every right; the last owner and personal team rules hold for it too).
 * `teams invite` is the invitations' own file.
 */
export function teamsCommand(): Command {
  const teams = new Command("teams").description("teams, their members and roles").addHelpText(
    "after",
    examples((me) => [
      `${me} teams create "Agency" --owner you@example.com`,
      `${me} teams list --owner you@example.com`,
      `${me} teams members tm_…`,
      `${me} teams role tm_… admin --owner colleague@example.com`,
      `${me} teams remove tm_… --owner colleague@example.com`,
      `${me} teams invite tm_… colleague@example.com --role editor`,
    ]),
  );
  teams.addCommand(inviteCommand());

  teams
    .command("list")
    .description("an owner's teams, oldest first, with their role in each")
    .requiredOption("--owner <email>", "the owner whose teams to list")
    .option("--json", "print only JSON")
    .action((opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const list = await s.teams.listTeams(OPERATOR, { owner: opts.owner });
        emit(!!opts.json, list, () =>
          list.length === 0
            ? `No teams: ${opts.owner} is no owner yet.`
            : table(
                ["ID", "NAME", "ROLE", "PERSONAL", "CREATED"],
                list.map((t) => [t.id, t.name, t.role, t.personal ? "yes" : "no", t.createdAt]),
              ),
        );
      }),
    );

  teams
    .command("create")
    .description("create a team whose owner is --owner (the owner is created if new)")
    .argument("<name>", "what the team is called, 1 to 100 characters")
    .requiredOption("--owner <email>", "the team's first owner")
    .option("--json", "print only JSON")
    .action((name: string, opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const team = await s.teams.createTeam(OPERATOR, { name, owner: opts.owner });
        emit(!!opts.json, team, () => `Created team "${team.name}" (${team.id}), owned by ${opts.owner}.`);
      }),
    );

  teams
    .command("members")
    .description("a team's members with their roles, oldest first")
    .argument("<team>", "team id, as `teams list` shows it")
    .option("--json", "print only JSON")
    .action((teamId: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const list = await s.teams.listMembers(OPERATOR, teamId);
        emit(!!opts.json, list, () =>
          table(
            ["EMAIL", "ROLE", "OWNER ID", "JOINED"],
            list.map((m) => [m.email, m.role, m.ownerId, m.joinedAt]),
          ),
        );
      }),
    );

  teams
    .command("role")
    .description("give a member another role; the last owner stays one, and a personal team's person its owner")
    .argument("<team>", "team id")
    .argument("<role>", `the new role: ${ROLES.join(", ")}`)
    .requiredOption("--owner <email>", "the member")
    .option("--json", "print only JSON")
    .action((teamId: string, role: string, opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const wanted = checkedRole(role);
        const owner = await ownerNamed(s, opts.owner);
        const member = await s.teams.setMemberRole(OPERATOR, teamId, owner.id, wanted);
        emit(!!opts.json, member, () => `${member.email} is now ${member.role} in team ${teamId}.`);
      }),
    );

  teams
    .command("remove")
    .description("take a member out of a team; never its last owner, nor a personal team's person")
    .argument("<team>", "team id")
    .requiredOption("--owner <email>", "the member")
    .option("--json", "print only JSON")
    .action((teamId: string, opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const owner = await ownerNamed(s, opts.owner);
        const member = await s.teams.removeMember(OPERATOR, teamId, owner.id);
        emit(
          !!opts.json,
          member,
          () => `Removed ${member.email} (${member.role}) from team ${teamId}; their sessions lose it at once.`,
        );
      }),
    );

  return teams;
}

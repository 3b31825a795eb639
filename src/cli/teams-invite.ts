import { Command } from "commander";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
import { ROLES, type Role } from "../lib/rights";
import { invitationLink } from "../modules/teams/invitation-message";
import { withServices } from "./context";
import { examples } from "./hints";
import { emit, fields } from "./output";

/**
 * `teams invite TEAM_ID EMAIL --role ROLE`: the API's invitation, made by the operator. It queues the
 * same one email; `--print-link` prints the link instead of emailing it (no SMTP server needed).
 * A subcommand of `teams`, registered there.
 */
export function inviteCommand(): Command {
  return new Command("invite")
    .description("invite a person to a team with a role: one email with a link that works once, for 7 days")
    .argument("<teamId>", "the team (tm_…)")
    .argument("<email>", "the person's email address")
    .requiredOption("--role <role>", ROLES.join(", "))
    .option("--print-link", "print the link instead of emailing it (it works without an SMTP server)")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} teams invite tm_… ada@example.com --role editor`,
        `${me} teams invite tm_… ada@example.com --role viewer --print-link`,
      ]),
    )
    .action(
      (teamId: string, email: string, opts: { role: string; printLink?: boolean; json?: boolean }, cmd: Command) =>
        withServices(cmd, async (s, deps) => {
          if (!(ROLES as readonly string[]).includes(opts.role))
            throw new AppError("INVALID_PARAMETER", `--role must be one of ${ROLES.join(", ")}`);
          const { invitation, token } = await s.invitations.invite(
            OPERATOR,
            teamId,
            { email, role: opts.role as Role },
            { email: !opts.printLink },
          );
          const { config } = deps;
          const base = config.publicUrl || `http://${config.host}:${config.port}`;
          const link = opts.printLink ? invitationLink(base, token) : null;
          emit(!!opts.json, link ? { ...invitation, link } : invitation, () =>
            [
              fields([
                ["invitation", invitation.id],
                ["email", invitation.email],
                ["role", invitation.role],
                ["expires", invitation.expiresAt],
              ]),
              "",
              link
                ? `Send this link to ${invitation.email} (it works once, for 7 days; nothing was emailed):\n\n  ${link}`
                : s.accounts.smtpConfigured
                  ? `An email with the link is on its way to ${invitation.email} (sent by a running formsvc serve).`
                  : `The email is queued, but no SMTP server is set (FORMSVC_SMTP_URL): it is sent once one is. Or run this again with --print-link and send the link yourself.`,
            ].join("\n"),
          );
        }),
    );
}

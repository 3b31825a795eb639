import { Command } from "commander";
import { AppError } from "../lib/errors";
import { withServices } from "./context";
import { examples, invocation, shellWord } from "./hints";
import { emit } from "./output";
import { askNewPassword, canPrompt, passwordFromStdin } from "./password-input";
import { MIN_PASSWORD_LENGTH } from "../modules/accounts/password";

export function ownersCommand(): Command {
  const owners = new Command("owners")
    .description("owner accounts: passwords to log in with, and their sessions")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} owners set-password you@example.com`,
        `printf '%s\\n' "$PASSWORD" | ${me} owners set-password you@example.com --password-stdin`,
        `${me} owners sessions revoke you@example.com`,
        `${me} owners 2fa reset --owner you@example.com`,
      ]),
    );

  owners
    .command("set-password")
    .description(
      `set the password an owner logs in with (at least ${MIN_PASSWORD_LENGTH} characters; the owner is created if new); ends the owner's sessions`,
    )
    .argument("<email>", "the owner's email address")
    .option(
      "--password-stdin",
      "read the password from stdin (one trailing newline is dropped) instead of asking on the terminal",
    )
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} owners set-password you@example.com`,
        `printf '%s\\n' "$PASSWORD" | ${me} owners set-password you@example.com --password-stdin`,
      ]),
    )
    .action(async (email: string, opts: { passwordStdin?: boolean; json?: boolean }, cmd: Command) => {
      const password = await readNewPassword(email, !!opts.passwordStdin);
      await withServices(cmd, async (s) => {
        const result = await s.accounts.setPassword(email, password);
        emit(!!opts.json, result, () =>
          [
            `Password set for ${result.owner}${result.ownerCreated ? " (a new owner)" : ""}.`,
            result.sessionsEnded
              ? `${result.sessionsEnded} session${result.sessionsEnded === 1 ? "" : "s"} ended: log in again with the new password.`
              : "",
          ]
            .filter(Boolean)
            .join("\n"),
        );
      });
    });

  const sessions = owners.command("sessions").description("an owner's login sessions");
  sessions
    .command("revoke")
    .description("end every login session of an owner; a running server refuses them from the next request on")
    .argument("<email>", "the owner's email address")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} owners sessions revoke you@example.com`]),
    )
    .action((email: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const result = await s.accounts.revokeSessions(email);
        emit(
          !!opts.json,
          result,
          () => `Ended ${result.sessionsEnded} session${result.sessionsEnded === 1 ? "" : "s"} of ${result.owner}.`,
        );
      }),
    );

  const twoFactor = owners.command("2fa").description("an owner's second factors (TOTP, passkeys)");
  twoFactor
    .command("reset")
    .description(
      "turn an owner's TOTP and recovery codes off, remove their passkeys, and end their sessions (they log in with the password alone, and enrol again)",
    )
    .requiredOption("--owner <email>", "the owner's email address")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`${me} owners 2fa reset --owner you@example.com`]),
    )
    .action((opts: { owner: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const owner = await s.owners.findOwner(opts.owner);
        if (!owner) throw new AppError("NOT_FOUND", `no owner ${opts.owner.trim().toLowerCase()}`);
        const passkeysRemoved = await s.passkeys.removeAll(owner.id);
        const wasOn = await s.secondFactor.reset(owner.id);
        const keys = passkeysRemoved ? ` ${passkeysRemoved} passkey${passkeysRemoved === 1 ? "" : "s"} removed;` : "";
        emit(!!opts.json, { owner: owner.email, wasOn, passkeysRemoved }, () =>
          wasOn
            ? `Second factor of ${owner.email} turned off;${keys} their sessions have ended.`
            : `${owner.email} had no TOTP second factor;${keys} their sessions have ended.`,
        );
      }),
    );

  return owners;
}

/** The new password: from stdin with the flag, else asked twice on the terminal; without either, a clear refusal. */
async function readNewPassword(email: string, fromStdin: boolean): Promise<string> {
  if (fromStdin) return passwordFromStdin();
  if (!canPrompt()) {
    throw new AppError(
      "INVALID_PARAMETER",
      `no terminal to ask for the password on; pipe it in with --password-stdin, e.g. printf '%s\\n' "$PASSWORD" | ${invocation()} owners set-password ${shellWord(email)} --password-stdin`,
    );
  }
  const password = await askNewPassword(`New password for ${email.trim().toLowerCase()}: `);
  if (password === "") throw new AppError("INVALID_PARAMETER", "no password given; nothing was changed");
  return password;
}

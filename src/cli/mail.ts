import { Command } from "commander";
import { normalizeEmail } from "../lib/email";
import { AppError } from "../lib/errors";
import { createSmtpMailer, describeMailError } from "../modules/outbox/mailer";
import { configFor } from "./context";
import { examples } from "./hints";
import { emit } from "./output";

export function mailCommand(): Command {
  const mail = new Command("mail").description("check the SMTP settings").addHelpText(
    "after",
    examples((me) => [
      `FORMSVC_SMTP_URL=smtp://user:pass@smtp.example.com:587 ${me} mail test --to you@example.com`,
      `${me} config    # the SMTP settings in effect, password hidden`,
    ]),
  );

  mail
    .command("test")
    .description("send one test message through FORMSVC_SMTP_URL and show the server's answer")
    .requiredOption("--to <email>", "where to send it")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [`FORMSVC_SMTP_URL=smtp://user:pass@smtp.example.com:587 ${me} mail test --to you@example.com`]),
    )
    .action(async (opts: { to: string; json?: boolean }, cmd: Command) => {
      const config = configFor(cmd);
      if (!config.smtpUrl)
        throw new AppError(
          "INVALID_PARAMETER",
          "FORMSVC_SMTP_URL is not set (e.g. smtp://user:pass@smtp.example.com:587)",
        );
      const to = normalizeEmail(opts.to);
      if (!to) throw new AppError("INVALID_PARAMETER", `"${opts.to}" is not a valid email address`);
      const mailer = createSmtpMailer(config.smtpUrl, config.mailFrom);
      try {
        const { response } = await mailer.send({
          to,
          subject: "formsvc test message",
          text: "This is a test message from formsvc. Owner notifications will arrive like this.",
          html: "<p>This is a test message from <b>formsvc</b>. Owner notifications will arrive like this.</p>",
        });
        emit(
          !!opts.json,
          { sent: true, to, response },
          () => `Sent a test message to ${to}. The SMTP server answered: ${response}`,
        );
      } catch (e) {
        throw new AppError("UNAVAILABLE", `sending failed: ${describeMailError(e)}`);
      } finally {
        mailer.close();
      }
    });

  return mail;
}

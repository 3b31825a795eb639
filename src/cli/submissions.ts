import { Command } from "commander";
import { closeSync, openSync, writeSync } from "node:fs";
import { AppError } from "../lib/errors";
import { exportCsv, exportJson } from "../modules/submissions/export";
import { withServices } from "./context";
import { examples } from "./hints";

const PROGRESS_EVERY = 10_000;

export function submissionsCommand(): Command {
  const submissions = new Command("submissions")
    .description("export submissions")
    .addHelpText(
      "after",
      examples((me) => [`${me} submissions export frm_… --out contact.csv`, `${me} submissions export frm_… --format json > contact.json`]),
    );

  submissions
    .command("export")
    .description("write every submission of a form, oldest first, as CSV or JSON (streamed: any size)")
    .argument("<formId>", "form id")
    .option("--format <format>", "csv or json", "csv")
    .option("--out <file>", "write to this file instead of stdout")
    .addHelpText("after", examples((me) => [`${me} submissions export frm_… --out contact.csv`, `${me} submissions export frm_… --format json > contact.json`]))
    .action((formId: string, opts: { format: string; out?: string }, cmd: Command) =>
      withServices(cmd, (s) => {
        if (opts.format !== "csv" && opts.format !== "json") throw new AppError("INVALID_PARAMETER", "--format must be csv or json");
        const form = s.forms.requireForm(formId);
        const pages = () => s.submissions.allSubmissions(form.id);
        // Long exports say how far they are, on stderr: stdout carries only the data.
        let reported = 0;
        const progress = (rows: number) => {
          if (rows - reported < PROGRESS_EVERY) return;
          reported = rows;
          process.stderr.write(`exported ${rows} of ${form.submissionCount} rows\n`);
        };
        const fd = opts.out ? openSync(opts.out, "w") : 1;
        try {
          for (const chunk of (opts.format === "csv" ? exportCsv : exportJson)(pages, progress)) writeSync(fd, chunk);
        } finally {
          if (fd !== 1) closeSync(fd);
        }
        if (opts.out) process.stderr.write(`exported ${form.submissionCount} submission(s) of ${form.id} to ${opts.out}\n`);
      }),
    );

  return submissions;
}

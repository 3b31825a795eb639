import { Command } from "commander";
import { closeSync, openSync, writeSync } from "node:fs";
import { extractEmail } from "../lib/email";
import { AppError } from "../lib/errors";
import { ownerPrincipal } from "../lib/principal";
import { exportCsv, exportJson } from "../modules/submissions/export";
import type { SubmissionListJson } from "../modules/submissions/model";
import { withServices } from "./context";
import { examples, invocation } from "./hints";
import { emit, preview, table } from "./output";

const PROGRESS_EVERY = 10_000;
// The API's page rules (GET /forms/{formId}/submissions), so a page and its cursor mean the same in both.
const LIMIT = /^(100|[1-9][0-9]?)$/;
const DEFAULT_LIMIT = "50";
const PREVIEW_CHARS = 60;

export function submissionsCommand(): Command {
  const submissions = new Command("submissions")
    .description("list, export, and move submissions into or out of the spam folder")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions list frm_…`,
        `${me} submissions list frm_… --limit 100 --json`,
        `${me} submissions list frm_… --spam`,
        `${me} submissions not-spam sub_…`,
        `${me} submissions export frm_… --out contact.csv`,
        `${me} submissions export frm_… --format json > contact.json`,
      ]),
    );

  submissions
    .command("list")
    .description("one page of a form's submissions, newest first, as GET /api/v1/forms/{formId}/submissions pages them")
    .argument("<formId>", "form id")
    .option("--limit <n>", "page size, 1 to 100", DEFAULT_LIMIT)
    .option("--cursor <cursor>", "the nextCursor of the previous page (from here or from the API)")
    .option("--spam", "the spam folder instead of the inbox (as ?status=spam)")
    .option("--json", "print only the API's JSON: {submissions, nextCursor}")
    .addHelpText("after", examples((me) => [`${me} submissions list frm_…`, `${me} submissions list frm_… --limit 10 --cursor <nextCursor> --json`]))
    .action((formId: string, opts: { limit: string; cursor?: string; spam?: boolean; json?: boolean }, cmd: Command) =>
      withServices(cmd, (s) => {
        if (!LIMIT.test(opts.limit)) throw new AppError("INVALID_PARAMETER", "--limit must be a whole number from 1 to 100");
        if (opts.cursor === "") throw new AppError("INVALID_CURSOR", "--cursor must be the nextCursor of a previous page");
        const form = s.forms.requireForm(formId);
        // The operator sees every owner's forms; the page is asked for as the form's own owner would.
        const status = opts.spam ? "spam" : "inbox";
        const page = s.submissions.pageJson(form.id, ownerPrincipal(form.ownerId), { limit: Number(opts.limit), cursor: opts.cursor, status });
        // The API's text as it is: the same bytes, the same cursors.
        if (opts.json) return void process.stdout.write(`${page}\n`);
        const { submissions: items, nextCursor } = JSON.parse(page) as SubmissionListJson;
        const lines = [opts.spam ? `${form.name} (${form.id}): spam, newest first` : `${form.name} (${form.id}): ${form.submissionCount} submission(s), newest first`, ""];
        if (items.length === 0) lines.push("No submissions on this page.");
        else
          lines.push(
            table(
              ["ID", "CREATED", "EMAIL", "DATA"],
              items.map(({ id, createdAt, data: { _meta, ...fields } }) => [id, createdAt, extractEmail(fields), preview(fields, PREVIEW_CHARS)]),
            ),
          );
        if (nextCursor) {
          const limit = opts.limit === DEFAULT_LIMIT ? "" : ` --limit ${opts.limit}`;
          lines.push("", `Next page: ${invocation()} submissions list ${form.id}${limit}${opts.spam ? " --spam" : ""} --cursor ${nextCursor}`);
        }
        process.stdout.write(`${lines.join("\n")}\n`);
      }),
    );

  for (const [name, to, what] of [
    ["spam", "spam", "move a submission to the spam folder: it counts nowhere from now on"],
    ["not-spam", "inbox", "move a submission out of the spam folder: it counts from now on, and its notifications and webhooks go out"],
  ] as const) {
    submissions
      .command(name)
      .description(what)
      .argument("<submissionId>", "submission id, as submissions list shows it")
      .option("--json", "print only JSON")
      .action((id: string, opts: { json?: boolean }, cmd: Command) =>
        withServices(cmd, (s) => {
          const { moved, status } = s.submissions.moveSubmission(id, to);
          emit(!!opts.json, { id, status, moved }, () => (moved ? `Moved ${id} to the ${to === "spam" ? "spam folder" : "inbox"}.` : `${id} is already in the ${to === "spam" ? "spam folder" : "inbox"}; nothing changed.`));
        }),
      );
  }

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

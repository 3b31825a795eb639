import { Command } from "commander";
import { closeSync, openSync, writeSync } from "node:fs";
import { senderEmail } from "../lib/email";
import { AppError } from "../lib/errors";
import { OPERATOR } from "../lib/principal";
import { exportCsv, exportJson } from "../modules/submissions/export";
import type { Erasure } from "../modules/submissions/lifecycle";
import {
  listedJson,
  SUBMISSION_STATES,
  type SubmissionListJson,
  type SubmissionState,
} from "../modules/submissions/model";
import type { SearchResultJson } from "../modules/search/routes";
import type { Form } from "../modules/forms/model";
import type { Services } from "../services";
import { withServices } from "./context";
import { exportProgress } from "./progress";
import { examples, invocation } from "./hints";
import { emit, oneLine, preview, table } from "./output";

// The API's page rules (GET /forms/{formId}/submissions), so a page and its cursor mean the same in both.
const LIMIT = /^(100|[1-9][0-9]?)$/;
const DEFAULT_LIMIT = "50";
const PREVIEW_CHARS = 60;

/** The forms a person's export or erasure covers: one form, one owner's (none for an unknown owner), or all (null). */
async function scope(s: Services, opts: { owner?: string; form?: string }): Promise<string[] | null> {
  if (opts.form !== undefined && opts.owner !== undefined)
    throw new AppError("INVALID_PARAMETER", "give --owner or a form, not both");
  if (opts.form !== undefined) return [(await s.forms.requireForm(opts.form)).id];
  if (opts.owner !== undefined) return (await s.forms.listAllForms(OPERATOR, { owner: opts.owner })).map((f) => f.id);
  return null;
}

/** A highlight's text with its matched words in [brackets], on one line (`oneLine`). */
const marked = (text: string, matches: [number, number][]): string => {
  let out = "";
  let at = 0;
  for (const [start, end] of matches) {
    out += `${text.slice(at, start)}[${text.slice(start, end)}]`;
    at = end;
  }
  return oneLine(out + text.slice(at)).replace(/\s+/g, " ");
};

/** `submissions list --partial`: a page of the answers saved halfway, as `?status=partial` answers it. */
async function listPartials(
  s: Services,
  form: Form,
  opts: { limit: string; cursor?: string; json?: boolean },
): Promise<void> {
  const page = await s.partials.list(OPERATOR, form.id, { limit: Number(opts.limit), cursor: opts.cursor });
  if (opts.json) return void process.stdout.write(`${JSON.stringify(page)}\n`);
  const lines = [`${form.name} (${form.id}): answers saved halfway, newest first`, ""];
  if (page.submissions.length === 0) lines.push("No answers saved halfway on this page.");
  else
    lines.push(
      table(
        ["ID", "SAVED", "EMAIL", "DATA"],
        page.submissions.map((p) => [p.id, p.updatedAt, p.email ?? "", preview(p.data, PREVIEW_CHARS)]),
      ),
    );
  if (page.nextCursor) {
    const limit = opts.limit === DEFAULT_LIMIT ? "" : ` --limit ${opts.limit}`;
    lines.push(
      "",
      `Next page: ${invocation()} submissions list ${form.id}${limit} --partial --cursor ${page.nextCursor}`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The line that tells what an erasure removed beside submissions, or "" when nothing. */
function alsoErased(also: Erasure["alsoErased"]): string {
  const parts = [
    [also.confirmations, "waitlist confirmation(s)"],
    [also.autoresponseThrottles, "autoresponse throttle(s)"],
    [also.messages, "message(s) to the address or naming it as Reply-To"],
    [also.partials, "answer(s) saved halfway"],
  ].filter(([n]) => n !== 0);
  return parts.length ? `Also erased: ${parts.map(([n, what]) => `${n} ${what}`).join(", ")}.` : "";
}

/** Writes chunks to a file, or to stdout. */
async function writeOut(out: string | undefined, chunks: AsyncIterable<string> | Iterable<string>): Promise<void> {
  // A person's submissions: readable by the operator only, as the database is.
  const fd = out ? openSync(out, "w", 0o600) : 1;
  try {
    for await (const chunk of chunks) writeAll(fd, Buffer.from(chunk));
  } finally {
    if (fd !== 1) closeSync(fd);
  }
}

/**
 * Every byte of `bytes` to `fd`. A write to a pipe may take only part of them, and one whose reader is
 * slower than us can be refused for now (EAGAIN) when the pipe is in non-blocking mode: both are retried.
 */
function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Bun.sleepSync(1);
    }
  }
}

export function submissionsCommand(): Command {
  const submissions = new Command("submissions")
    .description(
      "list, export, move into or out of the spam folder, set state, assignee and tags, add notes, delete, and erase a person's submissions",
    )
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions list frm_…`,
        `${me} submissions list frm_… --limit 100 --json`,
        `${me} submissions list frm_… --spam`,
        `${me} submissions not-spam sub_…`,
        `${me} submissions export frm_… --out contact.csv`,
        `${me} submissions export frm_… --format json > contact.json`,
        `${me} submissions delete sub_…`,
        `${me} submissions export --email ada@example.com > ada.json`,
        `${me} submissions erase --email ada@example.com`,
      ]),
    );

  submissions
    .command("search")
    .description(
      "search every form's submissions (or one form's), newest first, as GET /api/v1/submissions/search: words, foo*, \"a phrase\", -word, field:value; case and accents do not count",
    )
    .argument("<query>", "what to find")
    .option("--form <formId>", "one form only")
    .option("--limit <n>", "page size, 1 to 100", DEFAULT_LIMIT)
    .option("--cursor <cursor>", "the nextCursor of the previous page (from here or from the API)")
    .option("--spam", "the spam folder instead of the inbox")
    .option("--json", "print only the API's JSON: {submissions, nextCursor}, each with its highlights")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions search muller`,
        `${me} submissions search 'name:müller "last march" -invoice' --form frm_…`,
        `${me} submissions search 'wid*' --json`,
      ]),
    )
    .action(
      (
        q: string,
        opts: { form?: string; limit: string; cursor?: string; spam?: boolean; json?: boolean },
        cmd: Command,
      ) =>
        withServices(cmd, async (s) => {
          if (!LIMIT.test(opts.limit))
            throw new AppError("INVALID_PARAMETER", "--limit must be a whole number from 1 to 100");
          const page = await s.search.searchJson(OPERATOR, {
            q,
            formId: opts.form,
            spam: opts.spam === true,
            limit: Number(opts.limit),
            cursor: opts.cursor,
          });
          if (opts.json) return void process.stdout.write(`${page}\n`);
          const { submissions: hits, nextCursor } = JSON.parse(page) as SearchResultJson;
          const lines: string[] = [];
          if (hits.length === 0) lines.push("Nothing found.");
          else
            lines.push(
              table(
                ["ID", "FORM", "CREATED", "MATCHED"],
                hits.map(({ id, formId, createdAt, highlights }) => [
                  id,
                  formId,
                  createdAt,
                  highlights.map((h) => `${oneLine(h.field)}: ${marked(h.text, h.matches)}`).join(" | "),
                ]),
              ),
            );
          if (nextCursor) {
            const rest = `${opts.form ? ` --form ${opts.form}` : ""}${opts.spam ? " --spam" : ""}`;
            lines.push(
              "",
              `Next page: ${invocation()} submissions search ${JSON.stringify(q)}${rest} --cursor ${nextCursor}`,
            );
          }
          process.stdout.write(`${lines.join("\n")}\n`);
        }),
    );

  submissions
    .command("list")
    .description("one page of a form's submissions, newest first, as GET /api/v1/forms/{formId}/submissions pages them")
    .argument("<formId>", "form id")
    .option("--limit <n>", "page size, 1 to 100", DEFAULT_LIMIT)
    .option("--cursor <cursor>", "the nextCursor of the previous page (from here or from the API)")
    .option("--spam", "the spam folder instead of the inbox (as ?status=spam)")
    .option("--partial", "the answers visitors saved halfway on the hosted page (as ?status=partial)")
    .option("--json", "print only the API's JSON: {submissions, nextCursor}")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions list frm_…`,
        `${me} submissions list frm_… --limit 10 --cursor <nextCursor> --json`,
      ]),
    )
    .action(
      (
        formId: string,
        opts: { limit: string; cursor?: string; spam?: boolean; partial?: boolean; json?: boolean },
        cmd: Command,
      ) =>
        withServices(cmd, async (s) => {
          if (!LIMIT.test(opts.limit))
            throw new AppError("INVALID_PARAMETER", "--limit must be a whole number from 1 to 100");
          if (opts.cursor === "")
            throw new AppError("INVALID_CURSOR", "--cursor must be the nextCursor of a previous page");
          if (opts.spam && opts.partial)
            throw new AppError("INVALID_PARAMETER", "--spam and --partial are two folders: give one");
          const form = await s.forms.requireForm(formId);
          if (opts.partial) return listPartials(s, form, opts);
          const status = opts.spam ? "spam" : "inbox";
          const page = await s.submissions.pageJson(OPERATOR, form.id, {
            limit: Number(opts.limit),
            cursor: opts.cursor,
            status,
          });
          // The API's text as it is: the same bytes, the same cursors.
          if (opts.json) return void process.stdout.write(`${page}\n`);
          const { submissions: items, nextCursor } = JSON.parse(page) as SubmissionListJson;
          const lines = [
            opts.spam
              ? `${form.name} (${form.id}): spam, newest first`
              : `${form.name} (${form.id}): ${form.submissionCount} submission(s), newest first`,
            "",
          ];
          if (items.length === 0) lines.push("No submissions on this page.");
          else
            lines.push(
              table(
                ["ID", "CREATED", "EMAIL", "DATA"],
                items.map(({ id, createdAt, data: { _meta, ...fields } }) => [
                  id,
                  createdAt,
                  senderEmail(fields),
                  preview(fields, PREVIEW_CHARS),
                ]),
              ),
            );
          if (nextCursor) {
            const limit = opts.limit === DEFAULT_LIMIT ? "" : ` --limit ${opts.limit}`;
            lines.push(
              "",
              `Next page: ${invocation()} submissions list ${form.id}${limit}${opts.spam ? " --spam" : ""} --cursor ${nextCursor}`,
            );
          }
          process.stdout.write(`${lines.join("\n")}\n`);
        }),
    );

  for (const [name, to, what] of [
    ["spam", "spam", "move a submission to the spam folder: it counts nowhere from now on"],
    [
      "not-spam",
      "inbox",
      "move a submission out of the spam folder: it counts from now on, and its notifications and webhooks go out",
    ],
  ] as const) {
    submissions
      .command(name)
      .description(what)
      .argument("<submissionId>", "submission id, as submissions list shows it")
      .option("--json", "print only JSON")
      .action((id: string, opts: { json?: boolean }, cmd: Command) =>
        withServices(cmd, async (s) => {
          const { formId } = await s.submissions.requireSubmission(OPERATOR, id);
          const { moved, status } = await s.submissions.moveSubmission(OPERATOR, formId, id, to);
          emit(!!opts.json, { id, status, moved }, () =>
            moved
              ? `Moved ${id} to the ${to === "spam" ? "spam folder" : "inbox"}.`
              : `${id} is already in the ${to === "spam" ? "spam folder" : "inbox"}; nothing changed.`,
          );
        }),
      );
  }

  submissions
    .command("set")
    .description(
      "change a submission's state, assignee or tags, as PATCH /api/v1/forms/{formId}/submissions/{submissionId} does",
    )
    .argument("<submissionId>", "submission id, as submissions list shows it")
    .option("--state <state>", `one of ${SUBMISSION_STATES.join(", ")}`)
    .option("--assignee <email>", "a member of the form's team")
    .option("--unassign", "assign it to nobody")
    .option("--tag <tag>", "add a tag (repeat for more)", (tag: string, all: string[]) => [...all, tag], [])
    .option("--untag <tag>", "take a tag off (repeat for more)", (tag: string, all: string[]) => [...all, tag], [])
    .option("--json", "print only the submission as the API shows it")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions set sub_… --state done`,
        `${me} submissions set sub_… --assignee ada@example.com --tag urgent --tag billing --untag later`,
      ]),
    )
    .action(
      (
        id: string,
        opts: { state?: string; assignee?: string; unassign?: boolean; tag: string[]; untag: string[]; json?: boolean },
        cmd: Command,
      ) =>
        withServices(cmd, async (s) => {
          if (opts.state !== undefined && !(SUBMISSION_STATES as readonly string[]).includes(opts.state))
            throw new AppError("INVALID_PARAMETER", `--state must be one of ${SUBMISSION_STATES.join(", ")}`);
          if (opts.unassign && opts.assignee !== undefined)
            throw new AppError("INVALID_PARAMETER", "give --assignee or --unassign, not both");
          const { formId } = await s.submissions.requireSubmission(OPERATOR, id);
          const stored = await s.triage.update(OPERATOR, formId, id, {
            ...(opts.state !== undefined ? { state: opts.state as SubmissionState } : {}),
            ...(opts.unassign ? { assignee: null } : opts.assignee !== undefined ? { assignee: opts.assignee } : {}),
            ...(opts.tag.length ? { addTags: opts.tag } : {}),
            ...(opts.untag.length ? { removeTags: opts.untag } : {}),
          });
          if (opts.json)
            return void process.stdout.write(
              `${listedJson(stored).slice(0, -1)},"status":${JSON.stringify(stored.status)}}\n`,
            );
          process.stdout.write(
            `${id}: ${stored.state}, assigned to ${stored.assignee ?? "nobody"}, tags: ${stored.tags.join(", ") || "none"}.\n`,
          );
        }),
    );

  submissions
    .command("note")
    .description("add a note to a submission, for the team (written by the command line: no author)")
    .argument("<submissionId>", "submission id, as submissions list shows it")
    .argument("<text>", "the note, up to 10,000 characters")
    .option("--json", "print only the note as the API shows it")
    .action((id: string, text: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const { formId } = await s.submissions.requireSubmission(OPERATOR, id);
        const note = await s.triage.addNote(OPERATOR, formId, id, text);
        emit(!!opts.json, note, () => `Added note ${note.id} to ${id}.`);
      }),
    );

  submissions
    .command("revisions")
    .description(
      "list what a submission held before each change its submitter made through the edit link (editableDays), newest first",
    )
    .argument("<submissionId>", "submission id, as submissions list shows it")
    .option("--json", "print only JSON, as the API shows it")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const { formId } = await s.submissions.requireSubmission(OPERATOR, id);
        const revisions = await s.edits.listRevisions(OPERATOR, formId, id);
        emit(!!opts.json, { revisions }, () =>
          revisions.length === 0
            ? `${id} has not been changed by its submitter.`
            : revisions
                .map(({ revision, data, createdAt }) => {
                  const { _meta: _left, ...values } = data;
                  return `revision ${revision}, until ${createdAt}: ${JSON.stringify(values)}`;
                })
                .join("\n"),
        );
      }),
    );

  submissions
    .command("pdf")
    .description(
      "write one submission as a PDF: its form's name, when it came (in the form creator's time zone) and its id, then each field by its label in the form's order, files listed",
    )
    .argument("<submissionId>", "submission id, as submissions list shows it")
    .option("--out <file>", 'write to this file ("-": stdout; default "<form name> <submission id>.pdf" here)')
    .action((id: string, opts: { out?: string }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const { formId } = await s.submissions.requireSubmission(OPERATOR, id);
        const { bytes, fileName } = await s.pdfs.pdfFor(OPERATOR, formId, id);
        if (opts.out === "-") return void process.stdout.write(bytes);
        const out = opts.out ?? fileName;
        await Bun.write(out, bytes);
        process.stderr.write(`Wrote ${out} (${bytes.byteLength} bytes).\n`);
      }),
    );

  submissions
    .command("delete")
    .description("delete one submission, inbox or spam, with its queued notifications; counts and analytics drop it")
    .argument("<submissionId>", "submission id, as submissions list shows it")
    .option("--json", "print only JSON")
    .action((id: string, opts: { json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const form = await s.forms.requireForm((await s.submissions.requireSubmission(OPERATOR, id)).formId);
        const result = await s.lifecycle.deleteSubmission(OPERATOR, form.id, id);
        emit(!!opts.json, result, () => `Deleted ${id} from ${form.name} (${form.id}).`);
      }),
    );

  submissions
    .command("erase")
    .description(
      "erase everything stored about one person: every submission whose email is ADDRESS (inbox and spam), with its notifications, and what is kept about the address even when no submission of theirs is left (waitlist confirmations, autoresponse throttles, messages to it); then the database files are made to forget it",
    )
    .requiredOption("--email <address>", "the person's email address (case does not matter)")
    .option("--owner <email>", "only this owner's forms (default: every form)")
    .option("--form <formId>", "only this form")
    .option("--json", "print only JSON")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions export --email ada@example.com > ada.json   # first, if they asked for their data`,
        `${me} submissions erase --email ada@example.com`,
      ]),
    )
    .action((opts: { email: string; owner?: string; form?: string; json?: boolean }, cmd: Command) =>
      withServices(cmd, async (s) => {
        const result = await s.lifecycle.eraseByEmail(OPERATOR, opts.email, await scope(s, opts));
        emit(!!opts.json, result, () =>
          [
            result.erased === 0
              ? "No submissions with that email address."
              : `Erased ${result.erased} submission(s) from ${result.forms.length} form(s): ${result.forms.map((f) => `${f.formId} (${f.erased})`).join(", ")}.`,
            alsoErased(result.alsoErased),
            result.vacuumed
              ? "The database was rewritten once (VACUUM) to clear what it held from before deleted data was overwritten."
              : "",
            "Copies made before now (backups, the snapshots in backups/ beside the database, emails already sent) are not touched.",
          ]
            .filter(Boolean)
            .join("\n"),
        );
      }),
    );

  submissions
    .command("export")
    .description(
      "write every submission of a form, oldest first, as CSV or JSON (streamed: any size); or, with --email, all that is stored about one person, as JSON",
    )
    .argument("[formId]", "form id (with --email: only this form)")
    .option("--format <format>", "csv or json (default csv; with --email json only)")
    .option(
      "--email <address>",
      "a person's data: their submissions, inbox and spam, the waitlists they joined, the notifications they caused, their waitlist confirmations, autoresponse throttles and messages",
    )
    .option("--owner <email>", "with --email: only this owner's forms")
    .option("--out <file>", "write to this file instead of stdout")
    .option("--json", "the same as --format json")
    .addHelpText(
      "after",
      examples((me) => [
        `${me} submissions export frm_… --out contact.csv`,
        `${me} submissions export frm_… --format json > contact.json`,
        `${me} submissions export --email ada@example.com --out ada.json`,
      ]),
    )
    .action(
      (
        formId: string | undefined,
        opts: { format?: string; email?: string; owner?: string; out?: string; json?: boolean },
        cmd: Command,
      ) =>
        withServices(cmd, async (s) => {
          if (opts.json && opts.format !== undefined && opts.format !== "json")
            throw new AppError("INVALID_PARAMETER", "--json is --format json; give one of them");
          const format = opts.format ?? (opts.json || opts.email !== undefined ? "json" : "csv");
          if (format !== "csv" && format !== "json")
            throw new AppError("INVALID_PARAMETER", "--format must be csv or json");
          if (opts.email !== undefined) {
            if (format !== "json")
              throw new AppError("INVALID_PARAMETER", "a person's data (--email) is exported as JSON only");
            const person = await s.lifecycle.exportPerson(
              OPERATOR,
              opts.email,
              await scope(s, { owner: opts.owner, form: formId }),
            );
            return writeOut(opts.out, [`${JSON.stringify(person, null, 2)}\n`]);
          }
          if (formId === undefined)
            throw new AppError(
              "INVALID_PARAMETER",
              "name a form (submissions export FORM_ID), or a person (--email ADDRESS)",
            );
          if (opts.owner !== undefined) throw new AppError("INVALID_PARAMETER", "--owner goes with --email");
          const form = await s.forms.requireForm(formId);
          const pages = await s.submissions.allSubmissions(OPERATOR, form.id);
          const progress = exportProgress(form.submissionCount);
          let written = 0;
          const exported = (format === "csv" ? exportCsv : exportJson)(pages, (rows, stage) => {
            if (stage === "rows") written = rows;
            progress.update(rows, stage);
          });
          await writeOut(opts.out, exported);
          progress.done(`exported ${written} submission(s) of ${form.id}${opts.out ? ` to ${opts.out}` : ""}`);
        }),
    );

  return submissions;
}

import { fieldLabel } from "../../lib/field-label";
import { peopleTime } from "../../lib/people-time";
import { writePdf } from "../../lib/pdf/document";
import { display } from "../../lib/template";
import { filesOf, humanSize } from "../files/model";
import { isOperator, type Actor } from "../../lib/principal";
import type { FieldRule } from "../forms/model";
import type { SubmissionsService } from "./service";

/** What a submission's PDF is made of: its form's name and fields, and the submission as stored. */
export interface PdfSource {
  form: { name: string; fields: readonly Pick<FieldRule, "name" | "label">[] | null };
  submission: { id: string; createdAt: string; data: string };
  /** The IANA zone its time is written in. */
  timeZone: string;
}

/** A value as the PDF shows it: text as typed, a list of choices joined, a file list one file a line, anything else as JSON. */
function pdfValue(v: unknown): string {
  const files = filesOf(v);
  if (files) return files.map((f) => `${f.name} (${f.type}, ${humanSize(f.size)}; not in this PDF)`).join("\n");
  if (Array.isArray(v) && v.every((x) => ["string", "number", "boolean"].includes(typeof x))) return v.join(", ");
  return display(v);
}

/** The submission's fields in the form's order (its `fields` first, then the rest as stored), each by its label. */
export function pdfEntries(source: PdfSource): { name: string; label: string; value: string }[] {
  const { _meta: _, ...data } = JSON.parse(source.submission.data) as Record<string, unknown>;
  const defined = (source.form.fields ?? []).map((f) => f.name).filter((n) => Object.hasOwn(data, n));
  const names = [...new Set([...defined, ...Object.keys(data)])];
  return names.map((name) => ({ name, label: fieldLabel(name, source.form.fields), value: pdfValue(data[name]) }));
}

// One PDF is written at a time per process: each takes one core for up to a few seconds at its
// limits (document.ts), and the rest of the server keeps the others.
let queue: Promise<unknown> = Promise.resolve();

/** The PDF of one submission: the form's name, when it came (in `timeZone`, named) and its id, then each field. */
export function submissionPdf(source: PdfSource): Promise<Uint8Array> {
  const { form, submission, timeZone } = source;
  const written = queue.then(() =>
    writePdf({
      title: form.name,
      about: [`Received ${peopleTime(submission.createdAt, timeZone)} (${timeZone})`, `Submission ${submission.id}`],
      entries: pdfEntries(source),
      // One line at the foot of each page: a long name is cut there (the title above wraps it whole).
      footer: `${[...form.name].slice(0, 60).join("")} · ${submission.id}`,
    }),
  );
  queue = written.catch(() => undefined);
  return written;
}

/** The PDF's file name: the form's name and the submission's id, without what a file system refuses. */
export const pdfFileName = (formName: string, submissionId: string) =>
  `${formName.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, "_").slice(0, 100)} ${submissionId}.pdf`;

/**
 * Submissions' PDFs for whoever may read them (the right of reading a submission), the time in the
 * reader's zone: the caller's person (a key's maker), or for the operator the form's creator; UTC
 * for someone without one.
 */
export function createSubmissionPdfs(deps: {
  submissionFor: SubmissionsService["submissionFor"];
  zoneOf: (ownerId: string) => Promise<string | null>;
}) {
  return {
    async pdfFor(actor: Actor, formId: string, submissionId: string) {
      const { form, stored } = await deps.submissionFor(actor, formId, submissionId);
      const timeZone = (await deps.zoneOf(isOperator(actor) ? form.ownerId : actor.ownerId)) ?? "UTC";
      const bytes = await submissionPdf({ form, submission: stored, timeZone });
      return { bytes, fileName: pdfFileName(form.name, stored.id) };
    },
  };
}

export type SubmissionPdfs = ReturnType<typeof createSubmissionPdfs>;

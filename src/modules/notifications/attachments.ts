import { filesOf, humanSize } from "../files/model";
import type { FileRow } from "../files/repo";
import type { Form } from "../forms/model";
import type { MailAttachment } from "../outbox/message";
import type { OutboxRow } from "../outbox/repo";
import { pdfEntries, pdfFileName, submissionPdf } from "../submissions/pdf";
import type { StoredSubmission } from "../submissions/model";
import type { NotificationPayload } from "./queue";

/** What an owner notification carries, and the sentence that says so (empty with nothing to say). */
export interface Attached {
  attachments: MailAttachment[];
  note: string;
}

export interface AttachmentDeps {
  findSubmission(id: string): Promise<StoredSubmission | null>;
  findForm(id: string): Promise<Form | null>;
  filesOf(submissionId: string): Promise<FileRow[]>;
  /** A stored file's bytes as a stream, or null when the store has it no more. */
  read(key: string): Promise<ReadableStream<Uint8Array> | null>;
}

const NOTHING: Attached = { attachments: [], note: "" };

/**
 * The attachments of an owner notification, made as it is sent (never stored with it): the
 * submission's PDF (`attachPdf`) and its uploaded files (`attachFilesUpTo`), each as the form said
 * when the email was queued. Files go whole, in the form's field order: each that still fits in
 * what is left of the total is attached, the others are named as not attached (the email's links
 * reach them). Read from the submission as it is now: one deleted or erased meanwhile sends nothing
 * of it.
 */
export function createNotificationAttachments(deps: AttachmentDeps) {
  return async (row: OutboxRow): Promise<Attached> => {
    const p: Partial<NotificationPayload> = row.payload ? JSON.parse(row.payload) : {};
    if ((!p.attachPdf && !p.attachFilesUpTo) || !row.submission_id || !row.form_id) return NOTHING;
    const [submission, form] = [await deps.findSubmission(row.submission_id), await deps.findForm(row.form_id)];
    if (!submission || !form || submission.formId !== form.id) return NOTHING;
    const attachments: MailAttachment[] = [];
    const source = { form, submission, timeZone: p.timeZone ?? "UTC" };
    if (p.attachPdf)
      attachments.push({
        filename: pdfFileName(form.name, submission.id),
        content: await submissionPdf(source),
        contentType: "application/pdf",
      });
    const left: string[] = [];
    if (p.attachFilesUpTo) {
      const data = JSON.parse(submission.data) as Record<string, unknown>;
      const stored = new Map((await deps.filesOf(submission.id)).map((f) => [f.id, f]));
      let room = p.attachFilesUpTo;
      for (const { name } of pdfEntries(source))
        for (const ref of filesOf(data[name]) ?? []) {
          const file = stored.get(ref.file);
          if (!file || file.state !== "stored") continue;
          const stream = file.size <= room ? await deps.read(file.key) : null;
          if (stream) {
            attachments.push({ filename: file.name, content: stream, contentType: file.type });
            room -= file.size;
          } else left.push(`${file.name} (${humanSize(file.size)})`);
        }
    }
    const names = attachments.map((a) => a.filename);
    const note = [
      names.length ? `Attached: ${names.join(", ")}.` : "",
      left.length
        ? `Not attached, past the ${humanSize(p.attachFilesUpTo!)} this form attaches (each is listed above): ${left.join(", ")}.`
        : "",
    ]
      .filter(Boolean)
      .join(" ");
    return { attachments, note };
  };
}

export type NotificationAttachments = ReturnType<typeof createNotificationAttachments>;

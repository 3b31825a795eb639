import { AppError } from "../../lib/errors";
import type { Signer } from "../../lib/signing";
import { slot } from "../../lib/slots";
import type { Form } from "../forms/model";

const DAY_MS = 86_400_000;
// What an edit link signs before its submission: no file link or back link signs this.
const EDIT = "edit";

/** Marks a submission the notification queue takes as changed by its submitter (its revision), not new: "Edited: …". */
export const editedOf = slot<number>("edited");

/** An edit link's query: until when it works, and its signature. */
export interface EditLink {
  until?: string | undefined;
  sig?: string | undefined;
}

/** Until when a submission made at `createdAt` may be changed, by its form's `editableDays`; null when it takes no edits. */
export function editableUntil(form: Pick<Form, "editableDays">, createdAt: string): string | null {
  return form.editableDays === null ? null : new Date(Date.parse(createdAt) + form.editableDays * DAY_MS).toISOString();
}

/** A submission's edit link, signed with its form, its id and its time. */
export interface SignedEdit {
  submissionId: string;
  until: string;
  sig: string;
}

export const signEdit = (signer: Signer, formId: string, submissionId: string, until: string): SignedEdit => ({
  submissionId,
  until,
  sig: signer.sign(EDIT, formId, submissionId, until),
});

/** The path of an edit link (no origin). */
export const pathOf = (formId: string, { submissionId, until, sig }: SignedEdit): string =>
  `/f/${encodeURIComponent(formId)}/edit/${encodeURIComponent(submissionId)}?until=${encodeURIComponent(until)}&sig=${sig}`;

/** The path of a submission's edit link, signed. */
export const editPath = (signer: Signer, formId: string, submissionId: string, until: string): string =>
  pathOf(formId, signEdit(signer, formId, submissionId, until));

/** Whether the link's signature is ours for this form and submission (nothing else is checked). */
export const isSigned = (
  signer: Signer,
  formId: string,
  submissionId: string,
  link: EditLink,
): link is Required<EditLink> =>
  link.until !== undefined &&
  link.sig !== undefined &&
  signer.verifies(link.sig, EDIT, formId, submissionId, link.until);

/**
 * Refuses an edit link that no longer works: 403 EDIT_LINK_INVALID for a signature that does not
 * hold (the link altered), 410 EDIT_LINK_EXPIRED once the form takes no edits, the submission is
 * gone, or its time is past: the link's own, or the form's editableDays as it is now, whichever
 * comes first (shortening the setting shortens links already sent).
 */
export function checkEditLink(
  signer: Signer,
  form: Form,
  submissionId: string,
  submission: { formId: string; createdAt: string } | null,
  link: EditLink,
  now: number,
): void {
  if (!isSigned(signer, form.id, submissionId, link))
    throw new AppError("EDIT_LINK_INVALID", "this edit link is not valid; use the link exactly as it was sent");
  const until = submission?.formId === form.id ? editableUntil(form, submission.createdAt) : null;
  if (until === null || now > Math.min(Date.parse(link.until), Date.parse(until)))
    throw new AppError("EDIT_LINK_EXPIRED", "this edit link has expired, or the answer can no longer be changed");
}

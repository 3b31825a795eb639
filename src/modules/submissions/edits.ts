import type { Atomically } from "../../db/sql";
import { isoTime, type Clock } from "../../lib/clock";
import { extractEmail, senderEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import type { Actor, Principal } from "../../lib/principal";
import type { Signer } from "../../lib/signing";
import { uploadsOf } from "../files/model";
import { filesOf } from "../files/refs";
import type { Form } from "../forms/model";
import type { SubmissionUpdate } from "../webhooks/queue";
import {
  checkEditLink,
  editableUntil,
  editedOf,
  isSigned,
  pathOf,
  signEdit,
  type EditLink,
  type SignedEdit,
} from "./edit-link";
import type { Candidate, Queue, SubmitCheck } from "./pipeline";
import { runChecks } from "./pipeline";
import { EmailAlreadyAnswered, type SubmissionsRepo } from "./repo";
import type { SubmitRequest } from "./request";
import type { RevisionsRepo } from "./revisions-repo";
import { pipelineItem, unlessBusy, type SubmissionsService } from "./service";
import type { TriageRepo } from "./triage-repo";
import type { OutboxRepo } from "../outbox/repo";
import type { EditLinkPayload } from "./edit-link-message";
import { normalizeEmail } from "../../lib/email";

export interface EditsDeps {
  repo: SubmissionsRepo;
  revisions: RevisionsRepo;
  /** Locks submissions' rows for the change's transaction (triage-repo.ts). */
  lock: TriageRepo["lockSubmissions"];
  submissions: Pick<SubmissionsService, "submissionFor" | "forget">;
  atomically: Atomically;
  clock: Clock;
  /** Signs and checks edit links (lib/signing.ts: the key of file links and back links). */
  signer: Signer;
  /** The submit checks an edit passes as a post would (the origin, the honeypot, the files, the fields). */
  checks: SubmitCheck[];
  /** The files an edit brings become the submission's (files/repo.ts `attach`). */
  attach: (batch: ReturnType<typeof pipelineItem>[]) => Promise<void>;
  /** Indexes submissions again for search, in the caller's transaction. */
  reindex: (ids: string[]) => Promise<void>;
  /** The owner notification's queue (notifications/queue.ts), told the change by `editedOf`. */
  notify: Queue;
  webhooks: (formId: string) => Promise<{ id: string; url: string; enabled: boolean }[]>;
  queueUpdates: (
    form: Form,
    hooks: { id: string; url: string; enabled: boolean }[],
    updates: { update: SubmissionUpdate; submittedAt: string }[],
  ) => Promise<number>;
  /** After a commit that queued messages: the outbox sends them. */
  sendSoon: (queued: number) => void;
  /** Where an edit link asked for by email is queued (kind `edit_link`), and its throttle. */
  outbox: Pick<OutboxRepo, "insert" | "queuedSince">;
}

// An address is sent its edit link at most this often: the asking is anyone's.
const EDIT_LINK_EVERY_MS = 60 * 60 * 1000;

/** A stored submission's values as a page shows them again: `_meta` left out. */
const valuesOf = (json: string): Record<string, unknown> => {
  const { _meta: _dropped, ...values } = JSON.parse(json) as Record<string, unknown>;
  return values;
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A submitter's changes to their own answers (the form setting `editableDays`): the signed link
 * the thank-you page and the autoresponse carry, the values it opens, and the change it posts:
 * checked as a post is, kept with the earlier values as a revision, indexed again, notified as the
 * form says (the owner notification marked as an edit) and sent to webhooks as `submission.updated`.
 */
export function createEdits(deps: EditsDeps) {
  const { repo, revisions, atomically, clock, signer } = deps;

  /** The submission a link opens, checked (403 EDIT_LINK_INVALID, 410 EDIT_LINK_EXPIRED). */
  async function opened(form: Form, id: string, link: EditLink) {
    const stored = await repo.findSubmission(id);
    checkEditLink(signer, form, id, stored, link, clock.now());
    return stored!;
  }

  return {
    /** The edit link of a submission just stored (read back for its time), when its form takes edits. */
    async linkOfNew(form: Form, id: string): Promise<SignedEdit | null> {
      if (form.editableDays === null) return null;
      const stored = await repo.findSubmission(id);
      const until = stored && editableUntil(form, stored.createdAt);
      return until ? signEdit(signer, form.id, id, until) : null;
    },

    /**
     * The edit link a thank-you page offers, when its signature holds, the form still takes edits and
     * its time is not past; null otherwise (the page then offers none). Reads nothing.
     */
    offer(form: Form, link: Partial<SignedEdit>): { path: string; until: string } | null {
      const { submissionId, until, sig } = link;
      if (submissionId === undefined || form.editableDays === null || !isSigned(signer, form.id, submissionId, link))
        return null;
      return clock.now() > Date.parse(link.until!)
        ? null
        : { path: pathOf(form.id, { submissionId, until: until!, sig: sig! }), until: until! };
    },

    /** The values a link's page shows (the submission as it is now), and until when it may be changed. */
    async open(form: Form, id: string, link: EditLink): Promise<{ values: Record<string, unknown>; until: string }> {
      const stored = await opened(form, id, link);
      // The link's own time, or the setting's as it is now when that ends first.
      const until = [link.until!, editableUntil(form, stored.createdAt)!].sort((a, b) => Date.parse(a) - Date.parse(b));
      return { values: valuesOf(stored.data), until: until[0]! };
    },

    /**
     * Changes a submission through its link: the post is checked as a new one would be (a file
     * field sent without a file keeps the file it had), then, in one transaction, the earlier
     * values become a revision, the new ones the submission's, and the notification and webhooks
     * are queued. A post the honeypot catches changes nothing and is answered the same.
     */
    async edit(
      form: Form,
      visitor: Principal,
      id: string,
      link: EditLink,
      request: SubmitRequest,
    ): Promise<{ submissionId: string; revision: number | null }> {
      const before = await opened(form, id, link);
      const earlier = valuesOf(before.data);
      const data = { ...request.body.data };
      // A file is not sent again with a change: a field that held files and gets none keeps them.
      const uploaded = new Set(uploadsOf.get(request)?.map((u) => u.field));
      for (const [field, value] of Object.entries(earlier))
        if (filesOf(value) && !uploaded.has(field)) data[field] = value;
      const candidate: Candidate = {
        form,
        caller: visitor,
        body: request.body,
        data,
        submitter: request.submitter,
        formPost: request.formPost,
        spam: null,
        stages: request.stages,
      };
      const status = await runChecks(deps.checks, candidate);
      if (status === "spam") return { submissionId: id, revision: null };
      const { _meta: meta } = JSON.parse(before.data) as { _meta?: unknown };
      const json = JSON.stringify({ ...candidate.data, _meta: meta });
      const email = request.senderFirst ? senderEmail(candidate.data) : extractEmail(candidate.data);
      const { revision, queued } = await unlessBusy(() =>
        atomically(async () => {
          const [row] = await deps.lock([id]);
          if (!row || row.formId !== form.id)
            throw new AppError("EDIT_LINK_EXPIRED", "this answer is no longer there to change");
          const current = (await repo.findSubmission(id))!;
          // What the change replaced, against the values as committed (another change may have come between).
          const had = valuesOf(current.data);
          const changed = Object.fromEntries(
            [...new Set([...Object.keys(had), ...Object.keys(candidate.data)])]
              .filter((k) => !same(had[k], candidate.data[k]))
              .map((k) => [k, had[k] ?? null]),
          );
          const revision = await revisions
            .revise(id, { json: current.data, email: current.email }, json, email, isoTime(clock.now()))
            .catch((e) => {
              if (e instanceof EmailAlreadyAnswered)
                throw new AppError(
                  "ALREADY_SUBMITTED",
                  "this form takes one response per email address, and that one has answered",
                );
              throw e;
            });
          const item = pipelineItem({ ...current, data: json, email }, form);
          item.stages = request.stages;
          await deps.attach([item]);
          await deps.reindex([id]);
          if (row.status !== "inbox") return { revision, queued: 0 };
          editedOf.set(item, revision);
          let queued = await deps.notify([item]);
          const hooks = await deps.webhooks(form.id);
          const update: SubmissionUpdate = {
            id,
            formId: form.id,
            changed: ["data"],
            state: row.state,
            assignee: row.assigneeEmail,
            tags: row.tags,
            noteCount: current.noteCount,
            data: candidate.data,
            revision,
            previous: { data: changed },
          };
          queued += await deps.queueUpdates(form, hooks, [{ update, submittedAt: row.createdAt }]);
          return { revision, queued };
        }),
      );
      deps.submissions.forget(new Set([form.id]));
      if (queued) deps.sendSoon(queued);
      return { submissionId: id, revision };
    },

    /**
     * Emails an address its answer's edit link, when the form takes one response per email and
     * edits, that address holds an answer whose link still works, and it was not sent one within the
     * hour; otherwise nothing. The caller is told the same either way (the 409 that led here already
     * said whether the address has answered; this says nothing more). 404 for a form without both
     * settings, 400 for what is no address.
     */
    async sendLink(form: Form, email: string): Promise<void> {
      if (form.editableDays === null || !form.oneResponsePerEmail)
        throw new AppError("NOT_FOUND", "this form does not send edit links");
      const address = normalizeEmail(email);
      if (address === null) throw new AppError("INVALID_PARAMETER", "email must be an email address");
      const queued = await unlessBusy(() =>
        atomically(async () => {
          const answer = await revisions.findAnswer(form.id, address);
          const until = answer && editableUntil(form, answer.created_at);
          const now = clock.now();
          if (!answer || !until || now > Date.parse(until)) return 0;
          if (await deps.outbox.queuedSince("edit_link", form.id, answer.id, isoTime(now - EDIT_LINK_EVERY_MS)))
            return 0;
          const payload: EditLinkPayload = {
            path: pathOf(form.id, signEdit(signer, form.id, answer.id, until)),
            until,
          };
          await deps.outbox.insert({
            kind: "edit_link",
            formId: form.id,
            submissionId: answer.id,
            recipient: address,
            formName: form.name,
            data: "{}",
            payload: JSON.stringify(payload),
            submittedAt: answer.created_at,
            createdAt: isoTime(now),
          });
          return 1;
        }),
      );
      if (queued) deps.sendSoon(queued);
    },

    /** A submission's earlier values, newest first (`submissions.read`): 404 as reading the submission is. */
    async listRevisions(actor: Actor, formId: string, id: string) {
      await deps.submissions.submissionFor(actor, formId, id);
      return (await revisions.listRevisions(id)).map((r) => ({
        revision: r.revision,
        data: JSON.parse(r.data) as Record<string, unknown>,
        createdAt: r.createdAt,
      }));
    },
  };
}

export type Edits = ReturnType<typeof createEdits>;

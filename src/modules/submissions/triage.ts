import type { Atomically } from "../../db/sql";
import { isoTime, type Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isOperator, type Actor } from "../../lib/principal";
import type { AuditService } from "../audit/service";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { SubmissionUpdate } from "../webhooks/queue";
import {
  MAX_NOTE_LENGTH,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  type ListedSubmission,
  type SubmissionState,
  type SubmissionStatus,
} from "./model";
import type { SubmissionsRepo } from "./repo";
import type { NoteRow, TriageRepo, TriageRow } from "./triage-repo";
import type { BulkAction, TriageChange } from "./triage-model";
import { missingOf, unlessBusy } from "./service";

export interface TriageDeps {
  repo: SubmissionsRepo;
  triage: TriageRepo;
  forms: Pick<FormsService, "formFor">;
  atomically: Atomically;
  audit: Pick<AuditService, "record">;
  clock: Clock;
  /** The members of a team, by email (who may be assigned). */
  members: (teamId: string) => Promise<{ ownerId: string; email: string }[]>;
  /** Adds to a form's `unread` in the caller's transaction (repo.ts `unreadCounter`). */
  countUnread: (formId: string, delta: number) => Promise<void>;
  /** The form's webhooks, and the writer of their `submission.updated` deliveries (webhooks/queue.ts). */
  webhooks: (formId: string) => Promise<{ id: string; url: string; enabled: boolean }[]>;
  queueUpdates: (
    form: Form,
    hooks: { id: string; url: string; enabled: boolean }[],
    updates: { update: SubmissionUpdate; submittedAt: string }[],
  ) => Promise<number>;
  /** After a commit that queued deliveries: the outbox sends them. */
  sendSoon: (queued: number) => void;
  /** Indexes submissions again for search (their notes changed), in the caller's transaction (search/service.ts `reindex`). */
  reindex: (ids: string[]) => Promise<void>;
  /** After a commit that changed a form's submissions: its cached pages and counts go. */
  forget: (formIds: Set<string>) => void;
  /** The single-submission paths a bulk `delete`, `spam` and `not-spam` take, all or none. */
  deleteAll: (actor: Actor, formId: string, ids: string[]) => Promise<number>;
  moveAll: (actor: Actor, formId: string, ids: string[], to: SubmissionStatus) => Promise<number>;
}

// Control and format characters: a tag is shown in lists, emails and Slack messages.
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

/** A tag as given: 400 for one with spaces around it or what cannot be shown (the lengths are the schema's, checked here for the CLI too). */
function checkedTag(tag: string): string {
  if (tag.length < 1 || tag.length > MAX_TAG_LENGTH)
    throw new AppError("INVALID_PARAMETER", `a tag must be 1 to ${MAX_TAG_LENGTH} characters`);
  if (tag.trim() !== tag) throw new AppError("INVALID_PARAMETER", `the tag "${tag}" has spaces around it`);
  if (UNPRINTABLE.test(tag)) throw new AppError("INVALID_PARAMETER", "a tag must not hold control characters");
  return tag;
}

/** The tags a change leaves on a submission that had `had`, sorted; 400 past MAX_TAGS. */
function tagsAfter(had: string[], change: TriageChange): string[] {
  const removed = new Set(change.removeTags ?? []);
  const kept = change.tags ?? [...had.filter((t) => !removed.has(t)), ...(change.addTags ?? [])];
  const tags = [...new Set(kept)].sort();
  if (tags.length > MAX_TAGS)
    throw new AppError(
      "INVALID_PARAMETER",
      `a submission has at most ${MAX_TAGS} tags; this would give it ${tags.length}`,
    );
  return tags;
}

/** The change checked alone (its tags, that `tags` comes without `addTags`/`removeTags`). */
function checkedChange(change: TriageChange): TriageChange {
  if (change.tags && (change.addTags || change.removeTags))
    throw new AppError("INVALID_PARAMETER", "give tags, or addTags and removeTags, not both");
  for (const list of [change.tags, change.addTags, change.removeTags]) list?.forEach(checkedTag);
  return change;
}

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * The inbox's work on submissions: state, assignee, tags, notes, and bulk actions. Each change is one
 * transaction with its audit line, its form's `unread` and its `submission.updated` deliveries (inbox
 * submissions only: spam goes nowhere); the CLI and the API call the same functions.
 */
export function createTriage(deps: TriageDeps) {
  const { repo, triage, forms, atomically, audit, clock } = deps;

  /** The caller's form and these submissions of it, locked: 404 when one is not the form's. */
  const lockedOf = async (form: Form, ids: string[]): Promise<TriageRow[]> => {
    const rows = (await triage.lockSubmissions(ids)).filter((r) => r.formId === form.id);
    if (rows.length < ids.length) throw missingOf(form, ids, rows);
    return rows;
  };

  /** The member an email names, in the form's team: 400 NOT_A_MEMBER for anyone else. */
  const assigneeOf = async (form: Form, email: string | null): Promise<{ ownerId: string; email: string } | null> => {
    if (email === null) return null;
    const address = normalizeEmail(email);
    const member = address && (await deps.members(form.teamId)).find((m) => m.email === address);
    if (!member) throw new AppError("NOT_A_MEMBER", `${email} is not a member of the form's team ${form.teamId}`);
    return member;
  };

  /** Writes `change` to these locked submissions; returns the updates made (one changed nothing: none). */
  async function apply(actor: Actor, form: Form, rows: TriageRow[], change: TriageChange): Promise<SubmissionUpdate[]> {
    const assignee = change.assignee === undefined ? undefined : await assigneeOf(form, change.assignee);
    const updates: SubmissionUpdate[] = [];
    const byState = new Map<SubmissionState, string[]>();
    const assigned: string[] = [];
    let unread = 0;
    for (const row of rows) {
      const changed: SubmissionUpdate["changed"] = [];
      const previous: SubmissionUpdate["previous"] = {};
      const state = change.state ?? row.state;
      if (state !== row.state) {
        changed.push("state");
        previous.state = row.state;
        byState.get(state)?.push(row.id) ?? byState.set(state, [row.id]);
        if (row.status === "inbox") unread += (state === "new" ? 1 : 0) - (row.state === "new" ? 1 : 0);
      }
      const ownerId = assignee === undefined ? row.assignee : (assignee?.ownerId ?? null);
      if (ownerId !== row.assignee) {
        changed.push("assignee");
        previous.assignee = row.assigneeEmail;
        assigned.push(row.id);
      }
      const tags = change.tags || change.addTags || change.removeTags ? tagsAfter(row.tags, change) : row.tags;
      if (!sameTags(tags, row.tags)) {
        changed.push("tags");
        previous.tags = row.tags;
        await triage.changeTags(
          row,
          tags.filter((t) => !row.tags.includes(t)),
          row.tags.filter((t) => !tags.includes(t)),
        );
      }
      if (changed.length === 0) continue;
      updates.push({
        id: row.id,
        formId: form.id,
        changed,
        state,
        assignee: assignee === undefined ? row.assigneeEmail : (assignee?.email ?? null),
        tags,
        noteCount: 0,
        previous,
      });
      await audit.record(actor, form.teamId, "submission.updated", row.id, {
        formId: form.id,
        fields: changed,
        ...(changed.includes("state") ? { state } : {}),
      });
    }
    for (const [state, ids] of byState) await triage.setState(ids, state);
    if (assigned.length) await triage.setAssignee(assigned, assignee?.ownerId ?? null);
    await deps.countUnread(form.id, unread);
    return updates;
  }

  /** Queues the updates of inbox submissions to the form's webhooks, in the change's transaction; how many went. */
  async function announce(form: Form, rows: TriageRow[], updates: SubmissionUpdate[]): Promise<number> {
    const inbox = new Map(rows.filter((r) => r.status === "inbox").map((r) => [r.id, r]));
    const sent = updates.filter((u) => inbox.has(u.id));
    if (sent.length === 0) return 0;
    const hooks = await deps.webhooks(form.id);
    if (hooks.length === 0) return 0;
    const counts = await triage.noteCounts(sent.map((u) => u.id));
    return deps.queueUpdates(
      form,
      hooks,
      sent.map((u) => ({
        update: { ...u, noteCount: counts.get(u.id) ?? 0 },
        submittedAt: inbox.get(u.id)!.createdAt,
      })),
    );
  }

  /** Runs a change as one transaction, then drops the form's cached pages and counts and sends what it queued. */
  async function committing<T>(form: Form, work: () => Promise<{ result: T; queued: number }>): Promise<T> {
    const { result, queued } = await unlessBusy(() => atomically(work));
    deps.forget(new Set([form.id]));
    if (queued) deps.sendSoon(queued);
    return result;
  }

  /** The submission as lists show it now, with its folder. */
  const read = async (id: string) => (await repo.findSubmission(id))!;

  /** A note as the API shows it. */
  const noteJson = (n: NoteRow) => ({
    id: n.id,
    submissionId: n.submissionId,
    text: n.text,
    author: n.author,
    createdAt: n.createdAt,
  });

  return {
    /**
     * Changes a submission's state, assignee (a member's email, null to unassign) and tags (`tags`
     * replaces them; `addTags`, `removeTags` change them); what is left out stays. Answers it as
     * lists show it. 404 for the form or a submission not its, 403 for a caller without the right.
     */
    async update(
      actor: Actor,
      formId: string,
      id: string,
      change: TriageChange,
    ): Promise<ListedSubmission & { status: SubmissionStatus }> {
      // What is wrong with the change alone comes first (400), as the API checks a body before the resource.
      checkedChange(change);
      const form = await forms.formFor(actor, formId);
      await committing(form, async () => {
        const rows = await lockedOf(form, [id]);
        const updates = await apply(actor, form, rows, change);
        return { result: null, queued: await announce(form, rows, updates) };
      });
      return read(id);
    },

    /**
     * One action on up to 1,000 submissions of a form, all or none: `set` (a triage change to each),
     * `delete`, `spam`, `not-spam` (as the single-submission paths do each). An id that is not the
     * form's refuses the whole call (404), changing nothing. Answers how many changed.
     */
    async bulk(
      actor: Actor,
      formId: string,
      input: { ids: string[]; action: BulkAction; set?: TriageChange },
    ): Promise<{ action: BulkAction; ids: string[]; changed: number }> {
      const ids = [...new Set(input.ids)];
      const { action } = input;
      if (action !== "set" && input.set !== undefined)
        throw new AppError("INVALID_PARAMETER", `set goes with the action set, not ${action}`);
      if (action === "set" && !input.set)
        throw new AppError("INVALID_PARAMETER", "the action set needs set: {state?, assignee?, tags?}");
      if (action === "delete") return { action, ids, changed: await deps.deleteAll(actor, formId, ids) };
      if (action === "spam" || action === "not-spam")
        return { action, ids, changed: await deps.moveAll(actor, formId, ids, action === "spam" ? "spam" : "inbox") };
      const change = checkedChange(input.set!);
      const form = await forms.formFor(actor, formId);
      const changed = await committing(form, async () => {
        const rows = await lockedOf(form, ids);
        const updates = await apply(actor, form, rows, change);
        return { result: updates.length, queued: await announce(form, rows, updates) };
      });
      return { action, ids, changed };
    },

    /** Adds a note to a submission, written by the caller's person (null for the command line); answers it. */
    async addNote(actor: Actor, formId: string, id: string, text: string) {
      if (!text.trim() || text.length > MAX_NOTE_LENGTH)
        throw new AppError("INVALID_PARAMETER", `text must be 1 to ${MAX_NOTE_LENGTH} characters, not only spaces`);
      const form = await forms.formFor(actor, formId);
      const noteId = newId("nte");
      await committing(form, async () => {
        const rows = await lockedOf(form, [id]);
        await triage.insertNote({
          id: noteId,
          submissionId: id,
          authorId: isOperator(actor) ? null : actor.ownerId,
          text,
          at: isoTime(clock.now()),
        });
        await deps.reindex([id]);
        await audit.record(actor, form.teamId, "note.added", noteId, { formId: form.id, submissionId: id });
        const note = noteJson((await triage.findNote(noteId))!);
        return { result: null, queued: await announce(form, rows, [updateOf(rows[0]!, form, { note })]) };
      });
      return noteJson((await triage.findNote(noteId))!);
    },

    /** A submission's notes, oldest first. */
    async listNotes(actor: Actor, formId: string, id: string) {
      const form = await forms.formFor(actor, formId);
      const stored = await repo.findSubmission(id);
      if (!stored || stored.formId !== form.id)
        throw new AppError("NOT_FOUND", `form ${form.id} has no submission ${id}`);
      return { notes: (await triage.listNotes(id)).map(noteJson) };
    },

    /** Deletes a note: its author only (403 NOT_AUTHOR for anyone else; the operator may). */
    async deleteNote(actor: Actor, formId: string, id: string, noteId: string): Promise<{ id: string; deleted: true }> {
      const form = await forms.formFor(actor, formId);
      const note = await triage.findNote(noteId);
      if (!note || note.submissionId !== id) throw new AppError("NOT_FOUND", `submission ${id} has no note ${noteId}`);
      if (!isOperator(actor) && note.authorId !== actor.ownerId)
        throw new AppError("NOT_AUTHOR", "only the note's author may delete it");
      await committing(form, async () => {
        const rows = await lockedOf(form, [id]);
        if (!(await triage.deleteNote(note))) throw new AppError("NOT_FOUND", `submission ${id} has no note ${noteId}`);
        await deps.reindex([id]);
        await audit.record(actor, form.teamId, "note.deleted", noteId, { formId: form.id, submissionId: id });
        return {
          result: null,
          queued: await announce(form, rows, [updateOf(rows[0]!, form, { deletedNote: noteId })]),
        };
      });
      return { id: noteId, deleted: true };
    },
  };

  /** A notes-only update of a submission as it is (its note count filled in by `announce`). */
  function updateOf(
    row: TriageRow,
    form: Form,
    extra: Pick<SubmissionUpdate, "note" | "deletedNote">,
  ): SubmissionUpdate {
    return {
      id: row.id,
      formId: form.id,
      changed: ["notes"],
      state: row.state,
      assignee: row.assigneeEmail,
      tags: row.tags,
      noteCount: 0,
      previous: {},
      ...extra,
    };
  }
}

export type Triage = ReturnType<typeof createTriage>;

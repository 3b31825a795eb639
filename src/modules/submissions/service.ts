import { gcAndSweep } from "bun:jsc";
import { isForeignKeyViolation } from "../../db/errors";
import { DatabaseBusyError, isDatabaseBusy } from "../../db/busy";
import type { ChangeFeed } from "../../db/change-feed";
import { groupCommit } from "../../db/group-commit";
import { isoTime, type Clock } from "../../lib/clock";
import type { AnswerCache } from "../../lib/answer-cache";
import type { CursorCodec } from "../../lib/cursor";
import { extractEmail, senderEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isOperator, ownerPrincipal, type Actor, type Operator, type Principal } from "../../lib/principal";
import type { AuditService } from "../audit/service";
import { keysetPage, pageStart } from "../../lib/page";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import { droppedRedirectOf } from "./allowed-origin";
import { buildMeta, type SubmissionMeta } from "./meta";
import {
  listedJson,
  type ListedSubmission,
  type NewSubmission,
  type StoredSubmission,
  type SubmissionStatus,
  type SubmitResult,
} from "./model";
import { exportCsv, exportJson } from "./export";
import type { Candidate, SubmitPipeline } from "./pipeline";
import { EmailAlreadyAnswered, IdempotencyKeyTaken, type ListFilter, type SubmissionsRepo } from "./repo";
import type { SubmitRequest } from "./request";

/**
 * An export's pages die young, but the text they hold lives outside the collector's small heap, so
 * the collector lets it pile up: an export's memory grew with the form (100 MiB at 1,000,000 rows,
 * 65 MiB at 100,000). A full collection and sweep every 50 pages keeps it flat at about 55 MiB
 * (bench/export-rate.ts), for a few percent of the export's time; in a server, a pause of a few
 * milliseconds per 50,000 rows exported.
 */
const COLLECT_EVERY_PAGES = 50;

export interface SubmissionsDeps {
  repo: SubmissionsRepo;
  forms: FormsService;
  cursors: CursorCodec;
  clock: Clock;
  /** Commits by other processes (the CLI deleting a form): looked at before a page is answered from `answers`. */
  changes: ChangeFeed;
  /** Rendered answers drawn from forms' submissions (pages here, analytics): dropped for a form whose submissions a commit changed. */
  answers: AnswerCache;
  countryOf: (ip: string) => string | null;
  /** The stages a submission goes through (pipeline.ts): its checks, and what commits and moves it. */
  pipeline: SubmitPipeline;
  audit: Pick<AuditService, "record">;
  /**
   * Teaches the owner's spam filter a mark, moved or not, in the mark's transaction; what it
   * returns runs once that has committed (spam/filter.ts).
   */
  teach?: (form: Form, submission: StoredSubmission, to: SubmissionStatus) => Promise<() => void>;
  /** The cached forms' counters follow each commit of the pipeline (SQLite, forms/service.ts `counted`): a new submission's commit drops no form. */
  formsCounted?: boolean;
}

/** A stored submission as the pipeline's writers take it, with the status it has (or is given). */
export function pipelineItem(
  stored: StoredSubmission & { status: SubmissionStatus },
  form: Form,
  status: SubmissionStatus = stored.status,
): NewSubmission {
  const { _meta } = JSON.parse(stored.data) as { _meta?: SubmissionMeta };
  return {
    id: stored.id,
    form,
    status,
    json: stored.data,
    meta: _meta ?? ({} as SubmissionMeta),
    email: stored.email,
    createdAt: stored.createdAt,
    idempotency: null,
    spam: stored.spam,
    stages: {},
    state: stored.state,
  };
}

/** The 404 for ids among which some are not the form's submissions (`found`: those that are). */
export function missingOf(form: Form, ids: string[], found: { id: string }[]): AppError {
  const there = new Set(found.map((s) => s.id));
  const missing = [...new Set(ids)].filter((id) => !there.has(id));
  const more = missing.length > 5 ? ` (and ${missing.length - 5} more)` : "";
  return new AppError("NOT_FOUND", `form ${form.id} has no submission ${missing.slice(0, 5).join(", ")}${more}`);
}

/** Runs a write of the server's; a database locked by another process is a 503 with nothing changed. */
export async function unlessBusy<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isDatabaseBusy(e))
      throw new AppError(
        "UNAVAILABLE",
        "the database is busy with another process's write; nothing changed, retry in a moment",
        { "retry-after": "1" },
      );
    throw e;
  }
}

export function createSubmissionsService({
  repo,
  forms,
  cursors,
  clock,
  changes,
  answers,
  countryOf,
  pipeline,
  audit,
  teach,
  formsCounted = false,
}: SubmissionsDeps) {
  /** Drops what is cached of these forms (their counters, their pages, their analytics): after a commit that changed their submissions. */
  const forget = (formIds: Set<string>) => {
    forms.forget(formIds);
    answers.drop(formIds);
  };
  /** After a commit that changed these submissions' forms, before anyone is answered (the pipeline has run its hooks). */
  const committed = (batch: NewSubmission[]) => {
    const formIds = new Set(batch.map((s) => s.form.id));
    if (formsCounted) answers.drop(formIds);
    else forget(formIds);
  };
  /** A submission of this form, as `actor` may manage it: 404 for the form, 403 for another owner's, 404 for an id that is not the form's. */
  const submissionFor = async (
    actor: Actor,
    formId: string,
    id: string,
  ): Promise<{ form: Form; stored: ListedSubmission & { status: SubmissionStatus } }> => {
    const form = await forms.formFor(actor, formId);
    const stored = await repo.findSubmission(id);
    if (!stored || stored.formId !== form.id)
      throw new AppError("NOT_FOUND", `form ${form.id} has no submission ${id}`);
    return { form, stored };
  };
  /** A form's inbox, oldest first, a page at a time (its access checked by the caller). */
  async function* inboxPages(form: Form, pageSize = 1000): AsyncGenerator<ListedSubmission[]> {
    let after: StoredSubmission | null = null;
    for (let read = 1; ; read++) {
      const page = await repo.listSubmissionsOldestFirst(form.id, "inbox", after, pageSize);
      if (page.length) yield page;
      if (read % COLLECT_EVERY_PAGES === 0) gcAndSweep();
      if (page.length < pageSize) return;
      after = page[page.length - 1]!;
    }
  }
  /** Moves these submissions of `form` (each read again inside the transaction: another process may have moved or deleted it meanwhile); how many moved. */
  const moveAll = async (actor: Actor, form: Form, ids: string[], to: SubmissionStatus): Promise<number> => {
    const learned: (() => void)[] = [];
    const moving = await unlessBusy(() =>
      pipeline.transaction(async (tx) => {
        const current = await repo.findFormSubmissions(form.id, ids);
        if (current.length < new Set(ids).size) throw missingOf(form, ids, current);
        const items = current.filter((s) => s.status !== to).map((s) => pipelineItem(s, form, to));
        if (items.length) await tx.move(items, to);
        if (teach) for (const s of current) learned.push(await teach(form, s, to));
        for (const item of items)
          await audit.record(actor, form.teamId, "submission.moved", item.id, { formId: form.id, to });
        return items;
      }),
    );
    if (moving.length) committed(moving);
    for (const l of learned) l();
    return moving.length;
  };
  const batches = groupCommit<NewSubmission>(pipeline.commit, { afterCommit: committed, gather: pipeline.gather });
  // Concurrent retries with one Idempotency-Key share the first attempt instead of racing it.
  const inflight = new Map<string, Promise<SubmitResult>>();
  let storedCount = 0;

  async function store(form: Form, caller: Principal, request: SubmitRequest): Promise<SubmitResult> {
    const { body, submitter, idempotencyKey, formPost, stages } = request;
    const { _meta: _dropped, ...fields } = body.data;
    const candidate: Candidate = { form, caller, body, data: fields, submitter, formPost, spam: null, stages };
    const checked = pipeline.check(candidate);
    const status = checked instanceof Promise ? await checked : checked;
    const meta = buildMeta(submitter, countryOf);
    const id = newId("sub");
    const result: SubmitResult = {
      success: true,
      submissionId: id,
      ...(body.redirectUrl && droppedRedirectOf.get(candidate) === undefined ? { redirect: body.redirectUrl } : {}),
    };
    const submission: NewSubmission = {
      id,
      form,
      status,
      json: JSON.stringify({ ...candidate.data, _meta: meta }),
      meta,
      email: request.senderFirst ? senderEmail(candidate.data) : extractEmail(candidate.data),
      createdAt: isoTime(clock.now()),
      idempotency: idempotencyKey ? { key: idempotencyKey, response: JSON.stringify(result) } : null,
      spam: candidate.spam ? JSON.stringify(candidate.spam) : null,
      stages,
    };
    try {
      await batches.write(submission);
      storedCount += 1;
    } catch (e) {
      if (e instanceof IdempotencyKeyTaken)
        return JSON.parse((await repo.findIdempotentResponse(form.id, idempotencyKey!))!) as SubmitResult;
      // Hook for edits (editableDays): offering to email the edit link instead belongs here.
      if (e instanceof EmailAlreadyAnswered)
        throw new AppError(
          "ALREADY_SUBMITTED",
          "this form takes one response per email address, and this one has answered",
        );
      // The form was deleted between our check and the commit: its id no longer satisfies the foreign key.
      if (isForeignKeyViolation(e)) throw new AppError("FORM_NOT_FOUND", `form ${form.id} does not exist`);
      if (e instanceof DatabaseBusyError) {
        throw new AppError(
          "UNAVAILABLE",
          "the database is busy with another process's write; nothing was stored, retry in a moment",
          { "retry-after": "1" },
        );
      }
      throw e;
    }
    return result;
  }

  return {
    /**
     * Stores a submission (request.ts `submitRequest`) for a form the owner owns. Resolves only after
     * the submission is committed to disk; a repeated Idempotency-Key returns the first answer and
     * stores nothing. The operator's submissions (seeding, tests) pass the checks as the owner's
     * secret key's would.
     */
    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const { actor, idempotencyKey } = request;
      const form = await forms.formFor(actor, request.body.formId, "submit");
      const caller = isOperator(actor) ? ownerPrincipal(form.ownerId, form.teamId) : actor;
      if (!idempotencyKey) return store(form, caller, request);
      const slot = `${form.id}\n${idempotencyKey}`;
      const running = inflight.get(slot);
      if (running) return running;
      // In flight from before the lookup: a retry arriving while it reads shares it rather than storing twice.
      const attempt = (async () => {
        const stored = await repo.findIdempotentResponse(form.id, idempotencyKey);
        return stored ? (JSON.parse(stored) as SubmitResult) : store(form, caller, request);
      })().finally(() => inflight.delete(slot));
      inflight.set(slot, attempt);
      return attempt;
    },

    /**
     * One page of a form's submissions as the API's JSON, newest first; the cursor is bound to
     * this form. Answered from the answer cache while nothing new has been committed to the form.
     */
    async pageJson(
      actor: Actor,
      formId: string,
      query: { limit: number; cursor?: string; status?: SubmissionStatus; filter?: ListFilter },
    ): Promise<string> {
      const synced = changes.sync();
      if (synced) await synced;
      const status = query.status ?? "inbox";
      const filter = query.filter ?? {};
      // A filtered list is a list of its own: its cache entries and its cursors are apart.
      const filtered =
        filter.states || filter.tag !== undefined || filter.assignee !== undefined ? `:${JSON.stringify(filter)}` : "";
      const key = `submissions:${status}${filtered}:${query.limit}:${query.cursor ?? ""}`;
      let body = answers.get(formId, key);
      // A bad cursor is a 400 before the form's existence and owner are checked (the API's check order);
      // the cursor is signed for the form id it came from, so it is checked against the id asked for.
      // A cached page's cursor was checked when it was rendered.
      // Inbox cursors keep the name they always had; spam pages are a list of their own.
      const list = (status === "inbox" ? `submissions:${formId}` : `submissions:${formId}:${status}`) + filtered;
      const after = body === undefined ? pageStart(cursors, list, query.cursor) : null;
      await forms.formFor(actor, formId);
      if (body === undefined) {
        const seen = answers.generation();
        const page = await keysetPage(cursors, list, query.limit, after, (from, limit) =>
          repo.listSubmissionsByForm(formId, status, from, limit, filter),
        );
        body = `{"submissions":[${page.items.map(listedJson).join(",")}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
        answers.set(formId, key, body, seen);
      }
      return body;
    },

    submissionFor,

    /** A submission by id alone, whatever its form: the operator's, who may see every form; 404 when there is none. */
    async requireSubmission(_actor: Operator, id: string): Promise<StoredSubmission & { status: SubmissionStatus }> {
      const stored = await repo.findSubmission(id);
      if (!stored) throw new AppError("NOT_FOUND", `no submission with id ${id}`);
      return stored;
    },

    /**
     * Moves a submission of the caller's form into the inbox (`not-spam`: counted from now on, its
     * notifications and webhooks sent as for a new one) or out of it (`spam`: counted nowhere any
     * more). Moving it where it already is changes nothing. Returns the submission as listed, and
     * whether it moved.
     */
    async moveSubmission(
      actor: Actor,
      formId: string,
      id: string,
      to: SubmissionStatus,
    ): Promise<{ submission: StoredSubmission; status: SubmissionStatus; moved: boolean }> {
      const { form, stored } = await submissionFor(actor, formId, id);
      // A mark where it already is moves nothing, but still teaches the filter (not-spam on an inbox submission).
      if (stored.status === to) {
        if (teach) (await unlessBusy(() => pipeline.transaction(() => teach(form, stored, to))))();
        return { submission: stored, status: to, moved: false };
      }
      const moved = await moveAll(actor, form, [id], to);
      return { submission: stored, status: to, moved: moved > 0 };
    },

    /**
     * Moves these submissions of the caller's form into the inbox or out of it, all in one
     * transaction or none (404 naming what is not the form's), each as `moveSubmission` does (a mark
     * where it already is still teaches the filter). Returns how many moved.
     */
    async moveSubmissions(actor: Actor, formId: string, ids: string[], to: SubmissionStatus): Promise<number> {
      return moveAll(actor, await forms.formFor(actor, formId), ids, to);
    },

    forget,

    /** Every inbox submission of a form `actor` may read, oldest first, a page at a time; for exports that must not load a million rows at once. */
    async allSubmissions(actor: Actor, formId: string): Promise<() => AsyncGenerator<ListedSubmission[]>> {
      const form = await forms.formFor(actor, formId);
      return () => inboxPages(form);
    },

    /** A form's inbox as CSV or JSON text (export.ts), oldest first, made a page at a time as it is read; 404 and 403 at once. */
    async exportFor(actor: Actor, formId: string, format: "csv" | "json"): Promise<AsyncGenerator<string>> {
      const form = await forms.formFor(actor, formId);
      return (format === "csv" ? exportCsv : exportJson)(() => inboxPages(form));
    },

    /** Forgets idempotency keys older than `maxAgeMs` (at least a day, per our promise to clients). */
    expireIdempotencyKeys(maxAgeMs: number): Promise<number> {
      return repo.deleteIdempotencyKeysBefore(isoTime(clock.now() - maxAgeMs));
    },

    /** Waits until every submission received so far is committed (shutdown). */
    flush: () => batches.drain(),
    get pendingWrites() {
      return batches.pending;
    },
    /** Submissions committed by this process since it started. */
    get storedCount() {
      return storedCount;
    },
  };
}

export type SubmissionsService = ReturnType<typeof createSubmissionsService>;

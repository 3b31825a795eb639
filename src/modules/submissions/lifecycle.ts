import { DatabaseBusyError, retryWhileBusy } from "../../db/busy";
import type { Shredder } from "../../db/shred";
import { isoTime, type Clock } from "../../lib/clock";
import { normalizeEmail } from "../../lib/email";
import { AppError } from "../../lib/errors";
import { isOperator, type Actor, type Operator } from "../../lib/principal";
import type { AuditService } from "../audit/service";
import type { Form } from "../forms/model";
import type { FormsService } from "../forms/service";
import type { NewSubmission, SubmissionStatus } from "./model";
import type { SubmitPipeline } from "./pipeline";
import type { ConfirmationsRepo } from "../confirmations/repo";
import type { OutboxRepo } from "../outbox/repo";
import type { SubmissionsRepo } from "./repo";
import type { PartialsRepo } from "../dropin/partials-repo";
import { missingOf, pipelineItem, unlessBusy, type SubmissionsService } from "./service";

const DAY_MS = 86_400_000;
// Retention and form deletion go this many submissions per transaction (~30 ms), so neither the
// server's event loop nor the write lock is held long.
const CHUNK = 500;
// How long a chunk waits for another process's write lock before the work stops (503 over HTTP).
const BUSY_WAIT_MS = 5_000;

export interface LifecycleDeps {
  repo: SubmissionsRepo;
  forms: FormsService;
  submissions: Pick<SubmissionsService, "submissionFor" | "forget">;
  /** What deletes submissions (pipeline.ts): rows, what they left elsewhere, the tallies, then the hooks. */
  pipeline: Pick<SubmitPipeline, "transaction">;
  audit: Pick<AuditService, "record">;
  clock: Clock;
  /** Makes what an erasure deleted unrecoverable from the database's files. */
  shredder: Shredder;
  /** What the confirmations and the outbox keep about an address beside its submissions: listed for an export, forgotten by an erasure. */
  confirmations: Pick<ConfirmationsRepo, "forgetAddress" | "listAddressRecords">;
  outbox: Pick<OutboxRepo, "forgetAddress" | "listAddressRecords">;
  /** Answers saved halfway on the hosted page (dropin/partials-repo.ts), by the address they name. */
  partials: Pick<PartialsRepo, "forgetAddress" | "listAddressRecords">;
  /** Runs after every deletion has committed: removes what the deleted submissions kept outside the database (their files). */
  afterDelete: () => Promise<unknown>;
  /** What is stored about submissions elsewhere, by name (the notifications they caused), for a person's export. */
  related: Record<string, (submissionIds: string[]) => Promise<unknown[]>>;
}

/** All that is stored about one person, as `formsvc submissions export --email` prints it. */
export interface PersonExport {
  email: string;
  exportedAt: string;
  submissions: {
    id: string;
    formId: string;
    formName: string;
    status: SubmissionStatus;
    createdAt: string;
    data: unknown;
  }[];
  /** Waitlists that count the address as a joiner. */
  waitlists: { formId: string; formName: string }[];
  /** Double opt-in confirmations of the address, confirmed or pending, with or without a submission of theirs still there. */
  confirmations: Record<string, unknown>[];
  /** When each form last sent the address an autoresponse (kept an hour, so it gets at most one an hour). */
  autoresponseThrottles: Record<string, unknown>[];
  /** Messages sent to the address or naming it as Reply-To, queued or sent, that no submission under `submissions` caused (those are under `notifications`). */
  messages: Record<string, unknown>[];
  /** Answers saved halfway on a hosted page that name the address, with what was typed. */
  partials: Record<string, unknown>[];
  [related: string]: unknown;
}

/** What `formsvc submissions erase --email` did: submissions erased (in all, and by form), what else went, whether the file was rewritten. */
export interface Erasure {
  erased: number;
  forms: { formId: string; erased: number }[];
  /** What was kept about the address apart from its submissions, and went with them. */
  alsoErased: AddressRecords<number>;
  vacuumed: boolean;
}

/** What is stored about an address beside its submissions, by kind: rows, or how many of them went. */
export interface AddressRecords<T> {
  confirmations: T;
  autoresponseThrottles: T;
  messages: T;
  /** Answers saved halfway (save and resume) that the address was mailed or typed. */
  partials: T;
}

/** The forms that keep something about an address beside its submissions. */
const formsOf = (kept: AddressRecords<Record<string, unknown>[]>): string[] =>
  [kept.confirmations, kept.autoresponseThrottles, kept.messages, kept.partials].flat().map((r) => r.formId as string);

const validAddress = (email: string) => {
  const address = normalizeEmail(email);
  if (!address) throw new AppError("INVALID_PARAMETER", `"${email}" is not a valid email address`);
  return address;
};

/**
 * Deleting submissions: one by one (an owner's), by person (an erasure request), by age (each
 * form's retention), all of a form (with the form). Every deletion runs through the pipeline in one transaction with
 * its audit line, so counters, waitlist joiners and analytics rollups stay equal to a recount of
 * what is stored, and nothing a submission left behind (queued messages) outlives it.
 */
export function createSubmissionLifecycle({
  repo,
  forms,
  submissions,
  pipeline,
  audit,
  clock,
  shredder,
  confirmations,
  outbox,
  partials,
  afterDelete,
  related,
}: LifecycleDeps) {
  /** What is kept about an address beside its submissions in these forms (all when null), as an erasure would forget it. */
  const addressRecords = async (
    address: string,
    formIds: string[] | null,
  ): Promise<AddressRecords<Record<string, unknown>[]>> => ({
    ...(await confirmations.listAddressRecords(address, formIds)),
    ...(await outbox.listAddressRecords(address, formIds)),
    ...(await partials.listAddressRecords(address, formIds)),
  });

  /**
   * Deletes these submissions of `form` as they are inside the transaction (one deleted or moved
   * meanwhile by another process is taken as it is now, never uncounted twice); `record` writes
   * the audit line for the number deleted. Returns that number. `all`: every one must be there,
   * else nothing is deleted (404).
   */
  const remove = async (
    form: Form,
    ids: string[],
    record: (deleted: number, batch: NewSubmission[]) => Promise<void>,
    all = false,
  ): Promise<number> => {
    const deleted = await pipeline.transaction(async (tx) => {
      const batch = (await repo.findFormSubmissions(form.id, ids)).map((s) => pipelineItem(s, form));
      if (all && batch.length < new Set(ids).size) throw missingOf(form, ids, batch);
      if (batch.length === 0) return 0;
      await tx.delete(batch);
      await record(batch.length, batch);
      return batch.length;
    });
    if (deleted) {
      submissions.forget(new Set([form.id]));
      await afterDelete();
    }
    return deleted;
  };

  /** The forms that still exist among these ids, by id. */
  const formsById = async (ids: Iterable<string>) => {
    const found = new Map<string, Form>();
    for (const id of new Set(ids)) {
      try {
        found.set(id, await forms.requireForm(id));
      } catch (e) {
        // Deleted meanwhile: its submissions went with it.
        if (!(e instanceof AppError && e.code === "FORM_NOT_FOUND")) throw e;
      }
    }
    return found;
  };

  /** Waits for the next turn of the event loop: other requests run between chunks. */
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  /** Runs a chunk, waiting while another process holds the write lock; 503 when it holds it too long. */
  const chunk = async <T>(write: () => Promise<T>): Promise<T> => {
    try {
      return await retryWhileBusy(write, BUSY_WAIT_MS);
    } catch (e) {
      if (e instanceof DatabaseBusyError)
        throw new AppError(
          "UNAVAILABLE",
          "the database stayed busy with another process's write; part of the work may be done, retry to finish it",
          { "retry-after": "1" },
        );
      throw e;
    }
  };

  return {
    /**
     * Deletes a form with all its submissions: the submissions go a few hundred per transaction,
     * through the delete writers (so its counts stay true at every commit and the server keeps
     * answering), then the form with what is left (rollups, joiners, submissions that arrived
     * meanwhile) in one last transaction with its audit line. The actor's access is checked first.
     */
    async deleteForm(actor: Actor, id: string): Promise<Form> {
      const form = await forms.formFor(actor, id);
      for (;;) {
        const ids = await repo.listFormSubmissionIds(form.id, CHUNK);
        if (ids.length === 0) break;
        await chunk(() => remove(form, ids, async () => {}));
        if (ids.length < CHUNK) break;
        await nextTurn();
      }
      await chunk(() => forms.deleteForm(actor, form.id, form.submissionCount));
      submissions.forget(new Set([form.id]));
      // Submissions that came while it went were deleted with the form: their files too.
      await afterDelete();
      return form;
    },

    /** Deletes one submission of a form `actor` may manage (404, 403, 404 for another form's submission). */
    async deleteSubmission(actor: Actor, formId: string, id: string): Promise<{ id: string; deleted: true }> {
      const { form } = await submissions.submissionFor(actor, formId, id);
      const deleted = await unlessBusy(() =>
        remove(form, [id], () => audit.record(actor, form.teamId, "submission.deleted", id, { formId: form.id })),
      );
      if (!deleted) throw new AppError("NOT_FOUND", `form ${form.id} has no submission ${id}`);
      return { id, deleted: true };
    },

    /**
     * Deletes these submissions of a form `actor` may manage, all in one transaction or none (404
     * naming what is not the form's), each as `deleteSubmission` does with its audit line. Returns how many.
     */
    async deleteSubmissions(actor: Actor, formId: string, ids: string[]): Promise<number> {
      const form = await forms.formFor(actor, formId);
      return unlessBusy(() =>
        remove(
          form,
          ids,
          async (_n, batch) => {
            for (const s of batch)
              await audit.record(actor, form.teamId, "submission.deleted", s.id, { formId: form.id });
          },
          true,
        ),
      );
    },

    /**
     * Erases everything these forms (all when null) keep about an address: every submission, inbox
     * or spam, whose extracted email it is, with what each left behind (its spam lesson's counts
     * too), and what is kept apart from them whether or not one is still there (a waitlist
     * confirmation, an autoresponse throttle, messages to it). One transaction and one audit line per form, never naming the address. Then
     * the database's files are made to forget it (shred). The operator's alone: it reaches every owner.
     */
    async eraseByEmail(actor: Operator, email: string, formIds: string[] | null): Promise<Erasure> {
      const address = validAddress(email);
      const found = Map.groupBy(await repo.findSubmissionsByEmail(address, formIds), (s) => s.formId);
      const kept = await addressRecords(address, formIds);
      const holding = formsOf(kept);
      const done: Erasure["forms"] = [];
      const alsoErased: AddressRecords<number> = {
        confirmations: 0,
        autoresponseThrottles: 0,
        messages: 0,
        partials: 0,
      };
      for (const [formId, form] of await formsById([...found.keys(), ...holding])) {
        const { erased, forgotten } = await pipeline.transaction(async (tx) => {
          // The submissions first: leaving the tallies, a confirmed joiner is uncounted only while the confirmation is there.
          const batch = (
            await repo.findFormSubmissions(
              form.id,
              (found.get(formId) ?? []).map((s) => s.id),
            )
          ).map((s): NewSubmission => ({ ...pipelineItem(s, form), erased: true }));
          if (batch.length) await tx.delete(batch);
          const forgotten: AddressRecords<number> = {
            ...(await confirmations.forgetAddress(form.id, address)),
            ...(await outbox.forgetAddress(form.id, address)),
            ...(await partials.forgetAddress(form.id, address)),
          };
          if (batch.length || Object.values(forgotten).some((n) => n > 0)) {
            const beside = Object.fromEntries(Object.entries(forgotten).filter(([, n]) => n > 0));
            await audit.record(actor, form.teamId, "submissions.erased", form.id, {
              submissions: batch.length,
              ...beside,
            });
          }
          return { erased: batch.length, forgotten };
        });
        if (erased) {
          submissions.forget(new Set([form.id]));
          done.push({ formId, erased });
        }
        for (const [kind, n] of Object.entries(forgotten) as [keyof AddressRecords<number>, number][])
          alsoErased[kind] += n;
      }
      await afterDelete();
      const { vacuumed } = await shredder.shred();
      return { erased: done.reduce((n, f) => n + f.erased, 0), forms: done, alsoErased, vacuumed };
    },

    /**
     * All that is stored about one person in these forms (all when null): their submissions, the
     * waitlists they joined, what their submissions caused, and what is kept about the address
     * apart from them (confirmations, autoresponse throttles, messages to it). The operator's alone.
     */
    async exportPerson(_actor: Operator, email: string, formIds: string[] | null): Promise<PersonExport> {
      const address = validAddress(email);
      const found = await repo.findSubmissionsByEmail(address, formIds);
      const joined = await repo.listFormsJoinedBy(address, formIds);
      const kept = await addressRecords(address, formIds);
      const known = await formsById([...found.map((s) => s.formId), ...joined, ...formsOf(kept)]);
      const mine = found.filter((s) => known.has(s.formId));
      const ids = mine.map((s) => s.id);
      // A message one of their submissions caused is listed once, with that submission's notifications.
      const listed = new Set(ids);
      const named = (rows: Record<string, unknown>[]) =>
        rows
          .filter((r) => known.has(r.formId as string))
          .map((r) => ({ ...r, formName: known.get(r.formId as string)!.name }));
      return {
        email: address,
        exportedAt: isoTime(clock.now()),
        submissions: mine.map((s) => ({
          id: s.id,
          formId: s.formId,
          formName: known.get(s.formId)!.name,
          status: s.status,
          createdAt: s.createdAt,
          data: JSON.parse(s.data),
        })),
        waitlists: joined.filter((id) => known.has(id)).map((id) => ({ formId: id, formName: known.get(id)!.name })),
        confirmations: named(kept.confirmations),
        autoresponseThrottles: named(kept.autoresponseThrottles),
        messages: named(kept.messages.filter((m) => !listed.has(m.submissionId as string))),
        partials: named(kept.partials),
        ...Object.fromEntries(
          await Promise.all(Object.entries(related).map(async ([name, list]) => [name, await list(ids)])),
        ),
      };
    },

    /**
     * Deletes the submissions, inbox and spam, of every form with a retention that are older than
     * it; a few hundred per transaction, letting other requests run between them, each recorded as
     * the retention job's. Returns how many went.
     */
    async expireRetained(): Promise<number> {
      let total = 0;
      for (const form of await forms.formsWithRetention()) {
        const before = isoTime(clock.now() - form.retentionDays! * DAY_MS);
        const actor = { job: "retention" as const };
        for (const status of ["inbox", "spam"] as const) {
          for (;;) {
            const ids = (await repo.listSubmissionsCreatedBefore(form.id, status, before, CHUNK)).map((s) => s.id);
            if (ids.length === 0) break;
            total += await chunk(() =>
              remove(form, ids, (n) =>
                audit.record(actor, form.teamId, "submissions.expired", form.id, { submissions: n, before }),
              ),
            );
            if (ids.length < CHUNK) break;
            await nextTurn();
          }
        }
      }
      return total;
    },
  };
}

export type SubmissionLifecycle = ReturnType<typeof createSubmissionLifecycle>;

import type { Clock } from "../../lib/clock";
import { isoTime } from "../../lib/clock";
import type { ChangeFeed } from "../../db/change-feed";
import type { Atomically } from "../../db/sql";
import type { CursorCodec } from "../../lib/cursor";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { keysetPage, pageStart, type Page } from "../../lib/page";
import type { OwnersService } from "../owners/service";
import { isOperator, publishableScope, requireOwnerScope, type Actor, type Operator } from "../../lib/principal";
import { authorize, personalTeamId } from "../../lib/rights";
import type { AuditService } from "../audit/service";
import { usersJoined, type Autoresponse, type Challenge, type Form, type FormType } from "./model";
import { setAt, valueAt } from "../../lib/dotted-path";
import { WRITABLE_SETTINGS } from "./settings";
import { settingProblem, SettingsError, type SettingProblem } from "./setting-row";
import type { FormsRepo } from "./repo";
import { droppedRedirectOf } from "../submissions/allowed-origin";
import type { Committed } from "../submissions/pipeline";

/** Form fields that are the server's own: no operator sets them. */
type ServerField =
  "id" | "ownerId" | "teamId" | "submissionCount" | "unread" | "usersJoinedCount" | "createdAt" | "updatedAt";

/**
 * What an operator may set on a form: the fields of the settings table's writable rows (settings.ts),
 * the type and challenge as given (checked here). Subject or text given alone turn the autoresponse
 * on; `enabled: false` turns it off and keeps the templates. null clears a nullable setting.
 */
export type FormInput = Partial<Omit<Form, ServerField | "formType" | "challenge" | "autoresponse">> & {
  formType?: string;
  challenge?: string;
  autoresponse?: Partial<Autoresponse>;
};

type CheckedInput = Omit<FormInput, "formType" | "challenge"> & { formType?: FormType; challenge?: Challenge };

/**
 * The input with every setting checked by its row, its schema then its check (all problems in one
 * 400), and normalised. The API's body schema has been through the same schemas; the CLI's flags have not.
 */
function checked(input: FormInput): CheckedInput {
  const problems: SettingProblem[] = [];
  const out: Record<string, unknown> = { ...input, autoresponse: input.autoresponse && { ...input.autoresponse } };
  for (const { key, row } of WRITABLE_SETTINGS) {
    const value = valueAt(input, row.field);
    if (value === undefined) continue;
    const problem = settingProblem(key, row, value);
    if (problem) problems.push(problem);
    else if (row.normalize) setAt(out, row.field, row.normalize(value as never));
  }
  if (problems.length) throw new SettingsError(problems);
  return out as CheckedInput;
}

/** The form with the settings of `input` merged in, refused when they do not fit together. */
function applied(form: Form, input: CheckedInput): Form {
  const merged = { ...form, autoresponse: { ...form.autoresponse } };
  for (const { row } of WRITABLE_SETTINGS) {
    const value = valueAt(input, row.field);
    if (value !== undefined) setAt(merged, row.field, value);
  }
  const auto = input.autoresponse;
  if (auto && auto.enabled === undefined && (auto.subject !== undefined || auto.text !== undefined))
    merged.autoresponse.enabled = true;
  const problems: SettingProblem[] = [];
  if (
    merged.autoresponse.enabled &&
    (merged.autoresponse.subject.trim() === "" || merged.autoresponse.text.trim() === "")
  ) {
    problems.push({
      api: "an autoresponse needs a subject and a text (autoresponse.subject and autoresponse.text)",
      cli: "an autoresponse needs a subject and a text (--autoresponse-subject and --autoresponse-text)",
    });
  }
  if (merged.doubleOptIn && merged.formType !== "waitlist")
    problems.push({
      api: "double opt-in is for waitlist forms (set doubleOptIn to false first to change formType)",
      cli: "double opt-in is for waitlist forms (turn it off first with --no-double-opt-in to change the type)",
    });
  if (problems.length) throw new SettingsError(problems);
  return merged;
}

/**
 * The recipients as kept: an address already listed keeps its confirmed state (a removed one that
 * comes back confirms again), the owner's own address needs no link. Returns the addresses that
 * need one now.
 */
function withRecipients(before: Form["recipients"], after: Form, ownerEmail: string | null): string[] {
  const known = new Map(before.map((r) => [r.email, r.confirmed]));
  after.recipients = after.recipients.map(({ email }) => ({
    email,
    confirmed: email === ownerEmail || known.get(email) === true,
  }));
  return after.recipients.filter((r) => !r.confirmed && !known.has(r.email)).map((r) => r.email);
}

/** Queues a confirmation email to each address newly listed as a recipient, inside the form's transaction. */
export type RecipientsAdded = (form: Form, emails: string[]) => Promise<void>;

/** The settings whose values differ, named as Get Form names them (the audit trail's list). */
const changedSettings = (before: Form, after: Form): string[] =>
  WRITABLE_SETTINGS.filter(
    ({ row }) => JSON.stringify(valueAt(after, row.field)) !== JSON.stringify(valueAt(before, row.field)),
  ).map(({ key }) => key);

const CACHE_LIMIT = 10_000;

/** What other modules do when a form changes teams, inside the move's transaction; answers what to run once it committed. */
export type Moving = (form: Form, teamId: string) => Promise<() => void>;

/** What a caller does with a form: read or change it (secret keys), or submit to it (any key). */
export type Access = "manage" | "submit";

/**
 * Changes to forms are recorded in the audit trail, in the change's own transaction, as the
 * doing of the caller who made them; without a caller, of the operator at the command line.
 */
export function createFormsService(
  repo: FormsRepo,
  atomically: Atomically,
  owners: OwnersService,
  cursors: CursorCodec,
  clock: Clock,
  changes: ChangeFeed,
  audit: Pick<AuditService, "record">,
  recipientsAdded: RecipientsAdded = async () => {},
  /** One response per email turned on: the answers the form holds count from then on (submissions/repo.ts `countAnswers`). */
  answersCounted: (formId: string) => Promise<void> = async () => {},
) {
  // Forms are cached: every write that changes one drops its entry — edits here, and another
  // process's commit that wrote forms (the change feed, db/change-feed.ts) — so a read after a
  // write always sees it. Commits of submissions leave the settings cached and put the counts behind.
  const cache = new Map<string, Form>();
  // Reads in progress, shared by every request that misses the cache meanwhile: a commit drops the
  // form it counted, and the next requests for it arrive together; one statement serves them all.
  const loading = new Map<string, Promise<Form>>();
  // Counts the drops: a form read before a drop may be older than it, so it is not cached, and a
  // request after the drop starts a read of its own.
  let drops = 0;
  // The cached forms whose counters are current. This process's commits of submissions
  // (PostgreSQL, `forget`) put their forms behind, another process's put every form behind; the
  // settings hold, so a submit takes a form as it is, and what shows or uses a count reads it
  // again. `countMoves` counts both, as `drops` counts drops.
  const countsCurrent = new Set<string>();
  let countMoves = 0;
  const drop = (ids: Iterable<string>) => {
    drops += 1;
    for (const id of ids) {
      cache.delete(id);
      loading.delete(id);
      countsCurrent.delete(id);
    }
  };
  changes.onChange(() => {
    drops += 1;
    cache.clear();
    loading.clear();
    countsCurrent.clear();
  }, ["forms"]);
  changes.onChange(() => {
    countsCurrent.clear();
    countMoves += 1;
    loading.clear(); // reads in flight may predate the commit
  }, ["submissions"]);

  /**
   * The form as cached, once other processes' commits are taken into account; undefined when it is
   * not. At once on SQLite (no async step on every request); after a round trip on PostgreSQL.
   */
  const cached = (id: string, counts = true): Form | undefined | Promise<Form | undefined> => {
    const synced = changes.sync();
    const get = () => {
      const form = cache.get(id);
      // A capped form's submit reads its count (closing.ts): only a current one will do.
      return form && !countsCurrent.has(id) && (counts || form.maxSubmissions !== null) ? undefined : form;
    };
    return synced ? synced.then(get) : get();
  };

  /** The form as stored (one read for all who ask meanwhile), cached unless something was dropped while it was read; a 404 when there is none. */
  const load = (id: string): Promise<Form> => {
    const inFlight = loading.get(id);
    if (inFlight) return inFlight;
    const seen = drops;
    const seenMoves = countMoves;
    const settled = () => {
      if (loading.get(id) === read) loading.delete(id);
    };
    const read = repo.findFormById(id).then(
      (found) => {
        settled();
        if (!found) throw new AppError("FORM_NOT_FOUND", `form ${id} does not exist`);
        if (seen === drops) {
          if (cache.size >= CACHE_LIMIT) (cache.clear(), countsCurrent.clear());
          cache.set(id, found);
          if (seenMoves === countMoves) countsCurrent.add(id);
          else countsCurrent.delete(id);
        }
        return found;
      },
      (e: unknown) => {
        settled();
        throw e;
      },
    );
    loading.set(id, read);
    return read;
  };

  /** The form; a 404 when there is none. Answered from the cache without a statement when it can be. */
  const requireForm = async (id: string): Promise<Form> => (await cached(id)) ?? load(id);

  /**
   * The form if `actor` may `access` it: 404 when it does not exist; for a key or session, 403 when
   * it is another team's, 403 KEY_SCOPE when the key may not do that there (a publishable key
   * anywhere but submit, a bound key outside its forms), 403 ROLE_TOO_LOW when the caller's role in
   * the form's team is below the right its route states. The operator may reach every form.
   */
  const formFor = async (actor: Actor, id: string, access: Access = "manage"): Promise<Form> => {
    // The cache is asked here rather than through requireForm: one async step less on every request.
    const hit = cached(id, access !== "submit");
    const form = (hit instanceof Promise ? await hit : hit) ?? (await load(id));
    if (isOperator(actor)) return form;
    if (!actor.teams.has(form.teamId)) throw new AppError("FORBIDDEN", "this API key has no access to that form");
    if (actor.forms && !actor.forms.includes(id))
      throw new AppError("KEY_SCOPE", "this API key is bound to other forms");
    if (access === "submit") return form;
    if (actor.kind === "publishable") throw publishableScope();
    authorize(actor, form.teamId);
    return form;
  };

  const insert = async (actor: Actor, ownerId: string, teamId: string, valid: CheckedInput): Promise<Form> => {
    const now = isoTime(clock.now());
    const blank = {
      id: newId("frm"),
      ownerId,
      teamId,
      submissionCount: 0,
      unread: 0,
      usersJoinedCount: 0,
      createdAt: now,
      updatedAt: now,
      autoresponse: {},
      warnings: [] as Form["warnings"],
    };
    for (const { row } of WRITABLE_SETTINGS) if (row.default !== undefined) setAt(blank, row.field, row.default);
    const complete = applied(blank as Form, valid);
    const added = withRecipients([], complete, (await owners.findOwnerById(ownerId))?.email ?? null);
    await atomically(async () => {
      await repo.insertForm(complete);
      if (added.length) await recipientsAdded(complete, added);
      await audit.record(actor, teamId, "form.created", complete.id, { formType: complete.formType });
    });
    return complete;
  };

  return {
    /**
     * A new form: the operator's in the personal team of the owner it names (created if new); a
     * key's or session's in `teamId` (default: a key's own team, a session's personal team), where
     * it must be an editor or above (POST /forms: a secret key of all its team's forms, or a
     * session). 400 before 403.
     */
    async createForm(
      actor: Actor,
      input: FormInput & { owner?: string; teamId?: string; name: string },
    ): Promise<Form> {
      const valid = checked(input);
      requireOwnerScope(actor);
      if (!isOperator(actor)) {
        const teamId = input.teamId ?? actor.team;
        authorize(actor, teamId);
        return insert(actor, actor.ownerId, teamId, valid);
      }
      if (input.owner === undefined) throw new AppError("INVALID_PARAMETER", "name the form's owner (--owner EMAIL)");
      const owner = await owners.ensureOwner(input.owner);
      return insert(actor, owner.id, personalTeamId(owner.id), valid);
    },

    /**
     * Changes only the fields given; a field given its current value is no change. The actor's
     * access is checked after the input (400, then 404, then 403).
     */
    async updateForm(actor: Actor, id: string, patch: FormInput): Promise<Form> {
      const valid = checked(patch);
      const form = await formFor(actor, id);
      const updated = applied(form, valid);
      const added =
        valid.recipients === undefined
          ? []
          : withRecipients(form.recipients, updated, (await owners.findOwnerById(form.ownerId))?.email ?? null);
      const changed = changedSettings(form, updated);
      if (changed.length === 0) return form;
      updated.updatedAt = isoTime(clock.now());
      const recountJoiners =
        updated.formType !== form.formType ||
        (updated.formType === "waitlist" && updated.doubleOptIn !== form.doubleOptIn);
      await atomically(async () => {
        await repo.updateForm(updated, { recountJoiners });
        if (added.length) await recipientsAdded(updated, added);
        if (updated.oneResponsePerEmail && !form.oneResponsePerEmail) await answersCounted(id);
        await audit.record(actor, form.teamId, "form.updated", id, { fields: changed });
      });
      drop([id]);
      return requireForm(id);
    },

    /**
     * Removes the form with its submissions and everything derived from them, in one transaction
     * (the submissions lifecycle's deleteForm empties a large form first, a chunk at a time).
     * The actor's access is checked first; `submissions` is what the audit line says it had.
     */
    async deleteForm(actor: Actor, id: string, submissions?: number): Promise<Form> {
      const form = await formFor(actor, id);
      await atomically(async () => {
        await repo.deleteForm(id);
        await audit.record(actor, form.teamId, "form.deleted", id, {
          submissions: submissions ?? form.submissionCount,
        });
      });
      drop([id]);
      return form;
    },

    requireForm,

    formFor,

    /**
     * Marks a listed recipient confirmed (its link was opened). Read and written in one
     * transaction, so an edit of the form meanwhile is not lost.
     */
    async confirmRecipient(formId: string, email: string): Promise<"confirmed" | "already" | "unlisted"> {
      const done = await atomically(async () => {
        const form = await repo.findFormById(formId);
        const listed = form?.recipients.find((r) => r.email === email);
        if (!form || !listed) return "unlisted" as const;
        if (listed.confirmed) return "already" as const;
        listed.confirmed = true;
        await repo.updateForm(form, { recountJoiners: false });
        return "confirmed" as const;
      });
      drop([formId]);
      return done;
    },

    /** A pipeline hook: a commit that dropped a redirect target wrote its form's warnings (forms/repo.ts `noteWarnings`). */
    warned({ change, batch }: Committed): void {
      if (change !== "submitted") return;
      const ids = batch.filter((s) => droppedRedirectOf.get(s) !== undefined).map((s) => s.form.id);
      if (ids.length) drop(ids);
    },

    /** After a commit of this process that changed these forms' counters: their cached counts are behind. */
    forget(formIds: Iterable<string>): void {
      countMoves += 1;
      for (const id of formIds) {
        loading.delete(id); // a read in flight may predate the commit
        countsCurrent.delete(id);
      }
    },

    /**
     * What a commit added to a form's counters, applied to its cached copy (replaced, never changed
     * in place) instead of dropping it: after each batch the form would otherwise be read again.
     * Called as the commit is made, before anything can read it (SQLite's `afterCommit`), so the
     * cached copy is as committed before and after; a read in flight may predate the commit, and
     * is not cached.
     */
    counted(formId: string, submissions: number, joined: number, unread: number): void {
      drops += 1;
      loading.delete(formId);
      const form = cache.get(formId);
      if (form)
        cache.set(formId, {
          ...form,
          submissionCount: form.submissionCount + submissions,
          unread: form.unread + unread,
          usersJoinedCount: form.usersJoinedCount + joined,
        });
    },

    /** Distinct joiners of a waitlist form (0 while its counter is off); 404 for other form types. */
    async usersJoined(actor: Actor, id: string): Promise<number> {
      const form = await formFor(actor, id);
      if (form.formType !== "waitlist") throw new AppError("NOT_FOUND", `form ${id} is not a waitlist form`);
      return usersJoined(form);
    },

    /**
     * One page of the forms of a key's or session's teams (of `teamId` alone when given; a bound
     * key's forms only), newest first; the operator lists with listAllForms.
     */
    async listForms(
      caller: Exclude<Actor, Operator>,
      query: { limit: number; cursor?: string; teamId?: string },
    ): Promise<Page<Form>> {
      if (caller.kind === "publishable") throw publishableScope();
      const teams = query.teamId === undefined ? [...caller.teams.keys()].sort() : [query.teamId];
      for (const team of teams) authorize(caller, team);
      const list = `forms:${teams.join(",")}`;
      const after = pageStart(cursors, list, query.cursor);
      return keysetPage(cursors, list, query.limit, after, (from, limit) =>
        repo.listFormsOfTeams(teams, caller.forms, from, limit),
      );
    },

    /**
     * Moves a form to another team, where the caller (an admin or owner of both) wants it: its
     * submissions, webhooks and settings go with it, and what other modules keep by team moves in
     * the same transaction (`moving`); keys of the team it leaves no longer reach it.
     */
    async moveForm(
      actor: Actor,
      id: string,
      teamId: string,
      { teamExists, moving }: { teamExists: (id: string) => Promise<boolean>; moving: Moving },
    ) {
      const form = await formFor(actor, id);
      if (isOperator(actor)) {
        if (!(await teamExists(teamId))) throw new AppError("NOT_FOUND", `no team with id ${teamId}`);
      } else {
        requireOwnerScope(actor);
        authorize(actor, teamId);
      }
      if (form.teamId === teamId) return form;
      const moved = await atomically(async () => {
        await repo.moveForm(id, teamId, isoTime(clock.now()));
        const moved = await moving(form, teamId);
        await audit.record(actor, form.teamId, "form.moved", id, { from: form.teamId, to: teamId });
        await audit.record(actor, teamId, "form.moved", id, { from: form.teamId, to: teamId });
        return moved;
      });
      moved();
      drop([id]);
      return requireForm(id);
    },

    /** Forms whose submissions expire after their `retentionDays`. */
    formsWithRetention: (): Promise<Form[]> => repo.listFormsWithRetention(),

    /** Every form, or one team's, or one owner's personal team's (none for an owner never named), with its maker's email: the operator's list. */
    async listAllForms(_operator: Operator, filter: { owner?: string; teamId?: string } = {}) {
      if (filter.teamId !== undefined) return repo.listAllForms(filter.teamId);
      if (filter.owner === undefined) return repo.listAllForms(null);
      const owner = await owners.findOwner(filter.owner);
      return owner ? repo.listAllForms(personalTeamId(owner.id)) : [];
    },
  };
}

export type FormsService = ReturnType<typeof createFormsService>;

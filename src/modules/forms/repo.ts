import { keysetQuery } from "../../db/keyset";
import { pendingSubmissionsColumn } from "../../db/postgres/deltas";
import type { Sql } from "../../db/sql";
import type { Position } from "../../lib/cursor";
import { createJoiners, joinerRuleOf } from "../waitlist/joiners";
import { droppedRedirectOf } from "../submissions/allowed-origin";
import type { NewSubmission } from "../submissions/model";
import { MAX_FORM_WARNINGS, type Form, type FormWarning } from "./model";
import { setAt, valueAt } from "../../lib/dotted-path";
import { CODECS, STORED_SETTINGS } from "./settings";

/** A row of forms: the repo's own columns, and each stored setting's column (settings.ts). */
interface FormRow {
  id: string;
  owner_id: string;
  team_id: string;
  submission_count: number;
  /** PostgreSQL: the submissions not folded yet into `submission_count` (db/postgres/deltas.ts). */
  pending_submissions?: number;
  unread_count: number;
  /** PostgreSQL: as `pending_submissions`, for `unread_count`. */
  pending_unread?: number;
  users_joined_count: number;
  /** The form's warnings as JSON text, newest first; written by submits only (`noteWarnings`), never by an edit. */
  warnings: string;
  created_at: string;
  updated_at: string;
  [column: string]: unknown;
}

function toForm(r: FormRow): Form {
  const form = {
    id: r.id,
    ownerId: r.owner_id,
    teamId: r.team_id,
    submissionCount: r.submission_count + (r.pending_submissions ?? 0),
    unread: r.unread_count + (r.pending_unread ?? 0),
    usersJoinedCount: r.users_joined_count,
    warnings: JSON.parse(r.warnings) as FormWarning[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    autoresponse: {},
  };
  for (const { row } of STORED_SETTINGS)
    setAt(form, row.field, CODECS[row.stored ?? "plain"].fromColumn(r[row.column]));
  return form as Form;
}

/** The settings' columns, named as the statements bind them. */
const bindSettings = (f: Form): Record<string, unknown> =>
  Object.fromEntries(
    STORED_SETTINGS.map(({ row }) => [row.column, CODECS[row.stored ?? "plain"].toColumn(valueAt(f, row.field))]),
  );

// Column names come from the settings table, never from a request.
const COLUMNS = STORED_SETTINGS.map(({ row }) => row.column);
const INSERT = `INSERT INTO forms (id, owner_id, team_id, ${COLUMNS.join(", ")}, created_at, updated_at)
  VALUES ($id, $owner_id, $team_id, ${COLUMNS.map((c) => `$${c}`).join(", ")}, $created_at, $updated_at)`;
const UPDATE = `UPDATE forms SET ${COLUMNS.map((c) => `${c} = $${c}`).join(", ")}, updated_at = $updated_at WHERE id = $id`;

export function createFormsRepo(sql: Sql) {
  const joiners = createJoiners(sql);
  // Every form read with its count as a recount would give it (on PostgreSQL, the deltas not folded yet added).
  const ALL = `*${pendingSubmissionsColumn(sql, "forms")}`;
  const byTeams = keysetQuery<FormRow>(
    sql,
    `SELECT ${ALL} FROM forms WHERE team_id IN (SELECT value FROM json_each(?1)) AND (CAST(?2 AS TEXT) IS NULL OR id IN (SELECT value FROM json_each(?2)))`,
    "newest",
  );
  return {
    async insertForm(f: Form): Promise<void> {
      await sql.run(INSERT, {
        id: f.id,
        owner_id: f.ownerId,
        team_id: f.teamId,
        ...bindSettings(f),
        created_at: f.createdAt,
        updated_at: f.updatedAt,
      });
    },
    /**
     * Writes the editable fields; counters belong to the submissions that maintain them. The
     * exception is a change of type or of double opt-in (`recountJoiners`): its joiners are
     * counted anew (waitlist/joiners.ts), in the update's transaction.
     */
    updateForm(f: Form, opts: { recountJoiners: boolean }): Promise<void> {
      return sql.transaction(async () => {
        await sql.run(UPDATE, { id: f.id, ...bindSettings(f), updated_at: f.updatedAt });
        if (opts.recountJoiners) await joiners.recount(f.id, joinerRuleOf(f));
      });
    },
    /**
     * The submit pipeline's writer of the redirect targets it dropped, in the batch's transaction: each
     * form keeps the newest MAX_FORM_WARNINGS distinct targets, newest first. Its row is locked while
     * read, so two instances' batches add to each other's list.
     */
    async noteWarnings(batch: NewSubmission[]): Promise<void> {
      const byForm = new Map<string, FormWarning[]>();
      for (const s of batch) {
        const target = droppedRedirectOf.get(s);
        if (target === undefined) continue;
        const added = byForm.get(s.form.id) ?? [];
        added.unshift({ code: "REDIRECT_NOT_ALLOWED", target, at: s.createdAt });
        byForm.set(s.form.id, added);
      }
      for (const [id, added] of byForm) {
        const row = await sql.get<{ warnings: string }>(
          `SELECT warnings FROM forms WHERE id = ?${sql.traits.lockForUpdate}`,
          [id],
        );
        if (!row) continue;
        const kept: FormWarning[] = [];
        for (const w of [...added, ...(JSON.parse(row.warnings) as FormWarning[])])
          if (kept.length < MAX_FORM_WARNINGS && !kept.some((k) => k.code === w.code && k.target === w.target))
            kept.push(w);
        await sql.run("UPDATE forms SET warnings = ? WHERE id = ?", [JSON.stringify(kept), id]);
      }
    },
    /** Whether any form asks its joiners to confirm (so the server must know its public URL). */
    async anyDoubleOptIn(): Promise<boolean> {
      return (await sql.get("SELECT 1 AS one FROM forms WHERE double_opt_in = 1 LIMIT 1")) !== null;
    },
    async deleteForm(id: string): Promise<void> {
      await sql.run("DELETE FROM forms WHERE id = ?", [id]);
    },
    async findFormById(id: string): Promise<Form | null> {
      const row = await sql.get<FormRow>(`SELECT ${ALL} FROM forms WHERE id = ?`, [id]);
      return row ? toForm(row) : null;
    },
    /** One page of some teams' forms (only `ids` when given), newest first, strictly after `after`. */
    async listFormsOfTeams(
      teamIds: string[],
      ids: string[] | null,
      after: Position | null,
      limit: number,
    ): Promise<Form[]> {
      return (await byTeams([JSON.stringify(teamIds), ids && JSON.stringify(ids)], after, limit)).map(toForm);
    },
    async moveForm(id: string, teamId: string, at: string): Promise<void> {
      await sql.run("UPDATE forms SET team_id = ?, updated_at = ? WHERE id = ?", [teamId, at, id]);
    },
    /** Forms that delete their submissions after some days. */
    async listFormsWithRetention(): Promise<Form[]> {
      return (await sql.all<FormRow>(`SELECT ${ALL} FROM forms WHERE retention_days IS NOT NULL ORDER BY id`)).map(
        toForm,
      );
    },
    /** Forms whose owner notifications come as a daily digest. */
    async listDailyDigestForms(): Promise<Form[]> {
      return (await sql.all<FormRow>(`SELECT ${ALL} FROM forms WHERE notify_mode = 'daily' ORDER BY id`)).map(toForm);
    },
    /** Every form (of one team, or all), with its maker's email; for the operator's command line. */
    async listAllForms(teamId: string | null): Promise<(Form & { ownerEmail: string })[]> {
      const rows = await sql.all<FormRow & { owner_email: string }>(
        `SELECT f.*${pendingSubmissionsColumn(sql, "f")}, o.email AS owner_email FROM forms f JOIN owners o ON o.id = f.owner_id
         WHERE CAST(?1 AS TEXT) IS NULL OR f.team_id = ?1 ORDER BY f.created_at DESC, f.id DESC`,
        [teamId],
      );
      return rows.map((r) => ({ ...toForm(r), ownerEmail: r.owner_email }));
    },
  };
}

export type FormsRepo = ReturnType<typeof createFormsRepo>;

import type { Sql } from "../../db/sql";
import type { PartialRow } from "./partials-model";

const COLUMNS = `id, form_id AS "formId", token_hash AS "tokenHash", data, email, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The partials table (migration 41): what visitors saved halfway. Only this repo writes it. */
export function createPartialsRepo(sql: Sql) {
  return {
    insert: async (p: PartialRow): Promise<void> =>
      void (await sql.run(
        "INSERT INTO partials (id, form_id, token_hash, data, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [p.id, p.formId, p.tokenHash, p.data, p.email, p.createdAt, p.updatedAt],
      )),

    find: (id: string): Promise<PartialRow | null> =>
      sql.get<PartialRow>(`SELECT ${COLUMNS} FROM partials WHERE id = ?`, [id]),

    /** A new save of its values (and the address, when one is given); 0 when it is gone. */
    update: (id: string, data: string | null, email: string | null, at: string): Promise<number> =>
      sql.run(
        "UPDATE partials SET data = COALESCE(?2, data), email = COALESCE(?3, email), updated_at = ?4 WHERE id = ?1",
        [id, data, email, at],
      ),

    remove: (id: string): Promise<number> => sql.run("DELETE FROM partials WHERE id = ?", [id]),

    /** A page of a form's partials, newest first (ids are time-ordered), after the `before` id. */
    listPage: (formId: string, before: string | null, limit: number): Promise<PartialRow[]> =>
      sql.all<PartialRow>(
        `SELECT ${COLUMNS} FROM partials WHERE form_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR id < ?2) ORDER BY id DESC LIMIT ?3`,
        [formId, before, limit],
      ),

    /** Deletes those last saved before `before`; returns how many. */
    deleteSavedBefore: (before: string): Promise<number> =>
      sql.run("DELETE FROM partials WHERE updated_at < ?", [before]),

    /** An erasure: the address's partials in one form. */
    async forgetAddress(formId: string, email: string): Promise<{ partials: number }> {
      return { partials: await sql.run("DELETE FROM partials WHERE form_id = ? AND email = ?", [formId, email]) };
    },

    /** An address's partials in these forms (all when null), oldest first: a person's export. */
    async listAddressRecords(
      email: string,
      formIds: string[] | null,
    ): Promise<{ partials: Record<string, unknown>[] }> {
      const rows = await sql.all<{ id: string; formId: string; data: string; createdAt: string; updatedAt: string }>(
        `SELECT id, form_id AS "formId", data, created_at AS "createdAt", updated_at AS "updatedAt" FROM partials
         WHERE email = ?1 AND (CAST(?2 AS TEXT) IS NULL OR form_id IN (SELECT value FROM json_each(?2))) ORDER BY id`,
        [email, formIds && JSON.stringify(formIds)],
      );
      return { partials: rows.map((r) => ({ ...r, data: JSON.parse(r.data) as unknown })) };
    },
  };
}

export type PartialsRepo = ReturnType<typeof createPartialsRepo>;

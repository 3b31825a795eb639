import type { Sql } from "../../db/sql";
import { atLeast, type Role } from "../../lib/rights";

/** Whether a member hears of a form's submissions before choosing: owners and admins do, editors and viewers do not. */
export const notifiedByDefault = (role: Role): boolean => atLeast(role, "admin");

/** A member of a form's team as a reader of its owner notification: where it goes, the zone its times are written in, and whether they want it. */
export interface MemberReader {
  ownerId: string;
  email: string;
  timeZone: string;
  notify: boolean;
}

/** Each member's choice of a form's owner notification (`member_notifications`); no row is their role's default. */
export function createMemberNotificationsRepo(sql: Sql) {
  return {
    /**
     * Every member of each form's team with their choice for that form (or their role's default), by
     * form id: one statement for all of a batch's forms.
     */
    async readers(formIds: string[]): Promise<Map<string, MemberReader[]>> {
      const rows = await sql.all<{
        form_id: string;
        owner_id: string;
        email: string;
        time_zone: string;
        role: Role;
        notify: number | null;
      }>(
        `SELECT f.id AS form_id, m.owner_id, o.email, o.time_zone, m.role, n.notify FROM forms f
         JOIN team_members m ON m.team_id = f.team_id
         JOIN owners o ON o.id = m.owner_id
         LEFT JOIN member_notifications n ON n.form_id = f.id AND n.owner_id = m.owner_id
         WHERE f.id IN (SELECT value FROM json_each(?))`,
        [JSON.stringify(formIds)],
      );
      const byForm = new Map<string, MemberReader[]>(formIds.map((id) => [id, []]));
      for (const r of rows)
        byForm.get(r.form_id)!.push({
          ownerId: r.owner_id,
          email: r.email,
          timeZone: r.time_zone,
          notify: r.notify === null ? notifiedByDefault(r.role) : r.notify !== 0,
        });
      return byForm;
    },

    /** The member's own choice for the form; null while they have made none. */
    async choiceOf(formId: string, ownerId: string): Promise<boolean | null> {
      const row = await sql.get<{ notify: number }>(
        "SELECT notify FROM member_notifications WHERE form_id = ? AND owner_id = ?",
        [formId, ownerId],
      );
      return row ? row.notify !== 0 : null;
    },

    /** Keeps the member's choice for the form, replacing an earlier one. */
    async choose(formId: string, ownerId: string, notify: boolean): Promise<void> {
      await sql.run(
        `INSERT INTO member_notifications (form_id, owner_id, notify) VALUES (?1, ?2, ?3)
         ON CONFLICT (form_id, owner_id) DO UPDATE SET notify = excluded.notify`,
        [formId, ownerId, notify ? 1 : 0],
      );
    },
  };
}

export type MemberNotificationsRepo = ReturnType<typeof createMemberNotificationsRepo>;

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
    /** Every member of `teamId` with their choice for `formId` (or their role's default): one statement, asked once per form and batch. */
    async readers(teamId: string, formId: string): Promise<MemberReader[]> {
      const rows = await sql.all<{
        owner_id: string;
        email: string;
        time_zone: string;
        role: Role;
        notify: number | null;
      }>(
        `SELECT m.owner_id, o.email, o.time_zone, m.role, n.notify FROM team_members m
         JOIN owners o ON o.id = m.owner_id
         LEFT JOIN member_notifications n ON n.form_id = ?2 AND n.owner_id = m.owner_id
         WHERE m.team_id = ?1`,
        [teamId, formId],
      );
      return rows.map((r) => ({
        ownerId: r.owner_id,
        email: r.email,
        timeZone: r.time_zone,
        notify: r.notify === null ? notifiedByDefault(r.role) : r.notify !== 0,
      }));
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

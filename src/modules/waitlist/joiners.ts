import type { Sql } from "../../db/sql";

/** How a form counts joiners: not at all (not a waitlist), every joiner, or (double opt-in) confirmed ones only. */
export type JoinerRule = "none" | "all" | "confirmed";

const FORM_TYPE = "SELECT form_type, double_opt_in FROM forms WHERE id = ?";
const CONFIRMED =
  "SELECT 1 AS one FROM waitlist_confirmations WHERE form_id = ? AND email = ? AND confirmed_at IS NOT NULL";
// A batch's emails for one form in a statement per JOINERS_PER_UPSERT: on PostgreSQL each statement is a round trip.
const JOINERS_PER_UPSERT = 64;
const upsertJoiners = (n: number) =>
  `INSERT INTO waitlist_joiners (form_id, email, submissions) VALUES ${Array(n).fill("(?, ?, ?)").join(", ")}
   ON CONFLICT (form_id, email) DO UPDATE SET submissions = waitlist_joiners.submissions + excluded.submissions
   RETURNING email, submissions`;
const LEAVE_ONCE =
  "UPDATE waitlist_joiners SET submissions = submissions - 1 WHERE form_id = ? AND email = ? AND submissions > 1";
const REMOVE_JOINER = "DELETE FROM waitlist_joiners WHERE form_id = ? AND email = ?";

/**
 * The waitlist joiner rule, written once: a waitlist's joiners are its distinct extracted emails
 * with an inbox submission (emails are stored lower-cased, so case-insensitive), and each inbox
 * submission without an email; with double opt-in, only joiners whose address is confirmed (never
 * one without an email). `waitlist_joiners` keeps each email with how many inbox submissions carry
 * it; a form's `users_joined_count` is kept equal to the rule by whoever changes what it counts,
 * through these, in the same transaction.
 */
export function createJoiners(sql: Sql) {
  const isConfirmed = async (formId: string, email: string) => (await sql.get(CONFIRMED, [formId, email])) !== null;
  /** How a form counts joiners, as committed (not as cached): a form made a waitlist by another process counts from its next batch. */
  const rule = async (formId: string): Promise<JoinerRule> => {
    const f = await sql.get<{ form_type: string; double_opt_in: number }>(FORM_TYPE, [formId]);
    return f ? joinerRuleOf({ formType: f.form_type, doubleOptIn: f.double_opt_in === 1 }) : "none";
  };

  return {
    rule,

    /**
     * A form's inbox submissions with these emails (null: none) come in: how many joiners more the
     * form counts. One statement adds every email's submissions (the rows in email order, as the
     * batch locks them) and tells which emails are new: their row holds just this batch's count.
     */
    async joinAll(formId: string, rule: JoinerRule, emails: (string | null)[]): Promise<number> {
      if (rule === "none") return 0;
      const counts = new Map<string, number>();
      for (const e of emails) if (e !== null) counts.set(e, (counts.get(e) ?? 0) + 1);
      const sorted = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const added: string[] = [];
      for (let i = 0; i < sorted.length; i += JOINERS_PER_UPSERT) {
        const chunk = sorted.slice(i, i + JOINERS_PER_UPSERT);
        const rows = await sql.all<{ email: string; submissions: number }>(
          upsertJoiners(chunk.length),
          chunk.flatMap(([email, n]) => [formId, email, n]),
        );
        for (const r of rows) if (Number(r.submissions) === counts.get(r.email)) added.push(r.email);
      }
      if (rule === "all") return added.length + emails.filter((e) => e === null).length;
      if (added.length === 0) return 0;
      return (
        await sql.all(
          "SELECT email FROM waitlist_confirmations WHERE form_id = ?1 AND email IN (SELECT value FROM json_each(?2)) AND confirmed_at IS NOT NULL",
          [formId, JSON.stringify(added)],
        )
      ).length;
    },

    /** An inbox submission with this email (or none) leaves the inbox: whether the form counts one joiner less (the email's last one went). */
    async leave(formId: string, rule: JoinerRule, email: string | null): Promise<boolean> {
      if (rule === "all" && email === null) return true;
      if (rule === "none" || email === null) return false;
      if ((await sql.run(LEAVE_ONCE, [formId, email])) > 0 || (await sql.run(REMOVE_JOINER, [formId, email])) === 0)
        return false;
      return rule === "all" || (await isConfirmed(formId, email));
    },

    /** An address was just confirmed: whether the form counts it from now on (a joiner of a waitlist that counts confirmed ones). */
    async confirmedNow(formId: string, email: string): Promise<boolean> {
      return (
        (await rule(formId)) === "confirmed" &&
        (await sql.get("SELECT 1 AS one FROM waitlist_joiners WHERE form_id = ? AND email = ?", [formId, email])) !==
          null
      );
    },

    /**
     * Counts a form's joiners anew from the submissions it has (its type or double opt-in changed;
     * the submit path keeps joiners for waitlists only), inside the caller's transaction: one that
     * stops being a waitlist drops them.
     */
    async recount(formId: string, rule: JoinerRule): Promise<void> {
      await sql.run("DELETE FROM waitlist_joiners WHERE form_id = ?", [formId]);
      if (rule === "none")
        return void (await sql.run("UPDATE forms SET users_joined_count = 0 WHERE id = ?", [formId]));
      await sql.run(
        `INSERT INTO waitlist_joiners (form_id, email, submissions)
         SELECT form_id, email, CAST(count(*) AS INTEGER) FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND email IS NOT NULL GROUP BY form_id, email`,
        [formId],
      );
      await sql.run(
        rule === "confirmed"
          ? `UPDATE forms SET users_joined_count = (SELECT CAST(count(*) AS INTEGER) FROM waitlist_joiners j JOIN waitlist_confirmations c ON c.form_id = j.form_id AND c.email = j.email
               WHERE j.form_id = ?1 AND c.confirmed_at IS NOT NULL) WHERE id = ?1`
          : `UPDATE forms SET users_joined_count = (SELECT CAST(count(*) AS INTEGER) FROM waitlist_joiners WHERE form_id = ?1)
               + (SELECT CAST(count(*) AS INTEGER) FROM submissions WHERE form_id = ?1 AND status = 'inbox' AND email IS NULL) WHERE id = ?1`,
        [formId],
      );
    },
  };
}

export type Joiners = ReturnType<typeof createJoiners>;

/** The rule a form's settings give. */
export const joinerRuleOf = (f: { formType: string; doubleOptIn: boolean }): JoinerRule =>
  f.formType !== "waitlist" ? "none" : f.doubleOptIn ? "confirmed" : "all";

import { keysetQuery } from "../../db/keyset";
import type { Sql } from "../../db/sql";
import type { Position } from "../../lib/cursor";
import { createJoiners, joinerRuleOf } from "../waitlist/joiners";
import type { Challenge, Form, FormType } from "./model";

interface FormRow {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  form_type: string;
  email_enabled: number;
  developer_notifications: number;
  users_joined_enabled: number;
  submission_count: number;
  users_joined_count: number;
  allowed_origins: string;
  honeypot_field: string | null;
  challenge: string;
  autoresponse_enabled: number;
  autoresponse_subject: string;
  autoresponse_text: string;
  double_opt_in: number;
  confirm_redirect_url: string | null;
  retention_days: number | null;
  created_at: string;
  updated_at: string;
}

const toForm = (r: FormRow): Form => ({
  id: r.id,
  ownerId: r.owner_id,
  name: r.name,
  description: r.description,
  formType: r.form_type as FormType,
  emailEnabled: r.email_enabled === 1,
  developerNotifications: r.developer_notifications === 1,
  usersJoinedEnabled: r.users_joined_enabled === 1,
  submissionCount: r.submission_count,
  usersJoinedCount: r.users_joined_count,
  allowedOrigins: JSON.parse(r.allowed_origins) as string[],
  honeypotField: r.honeypot_field,
  challenge: r.challenge as Challenge,
  autoresponse: { enabled: r.autoresponse_enabled === 1, subject: r.autoresponse_subject, text: r.autoresponse_text },
  doubleOptIn: r.double_opt_in === 1,
  confirmRedirectUrl: r.confirm_redirect_url,
  retentionDays: r.retention_days,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const bind = (f: Form) => ({
  id: f.id,
  owner_id: f.ownerId,
  name: f.name,
  description: f.description,
  form_type: f.formType,
  email_enabled: Number(f.emailEnabled),
  developer_notifications: Number(f.developerNotifications),
  users_joined_enabled: Number(f.usersJoinedEnabled),
  allowed_origins: JSON.stringify(f.allowedOrigins),
  honeypot_field: f.honeypotField,
  challenge: f.challenge,
  autoresponse_enabled: Number(f.autoresponse.enabled),
  autoresponse_subject: f.autoresponse.subject,
  autoresponse_text: f.autoresponse.text,
  double_opt_in: Number(f.doubleOptIn),
  confirm_redirect_url: f.confirmRedirectUrl,
  retention_days: f.retentionDays,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export function createFormsRepo(sql: Sql) {
  const joiners = createJoiners(sql);
  const byOwner = keysetQuery<FormRow>(sql, "SELECT * FROM forms WHERE owner_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR id IN (SELECT value FROM json_each(?2)))", "newest");
  return {
    async insertForm(f: Form): Promise<void> {
      await sql.run(
        `INSERT INTO forms (id, owner_id, name, description, form_type, email_enabled, developer_notifications, users_joined_enabled,
           allowed_origins, honeypot_field, challenge, autoresponse_enabled, autoresponse_subject, autoresponse_text, double_opt_in,
           confirm_redirect_url, retention_days, created_at, updated_at)
         VALUES ($id, $owner_id, $name, $description, $form_type, $email_enabled, $developer_notifications, $users_joined_enabled,
           $allowed_origins, $honeypot_field, $challenge, $autoresponse_enabled, $autoresponse_subject, $autoresponse_text, $double_opt_in,
           $confirm_redirect_url, $retention_days, $created_at, $updated_at)`,
        bind(f),
      );
    },
    /**
     * Writes the editable fields; counters belong to the submissions that maintain them. The
     * exception is a change of type or of double opt-in (`recountJoiners`): its joiners are
     * counted anew (waitlist/joiners.ts), in the update's transaction.
     */
    updateForm(f: Form, opts: { recountJoiners: boolean }): Promise<void> {
      const { owner_id: _, created_at: __, ...fields } = bind(f);
      return sql.transaction(async () => {
        await sql.run(
          `UPDATE forms SET name = $name, description = $description, form_type = $form_type, email_enabled = $email_enabled,
             developer_notifications = $developer_notifications, users_joined_enabled = $users_joined_enabled,
             allowed_origins = $allowed_origins, honeypot_field = $honeypot_field, challenge = $challenge,
             autoresponse_enabled = $autoresponse_enabled, autoresponse_subject = $autoresponse_subject, autoresponse_text = $autoresponse_text,
             double_opt_in = $double_opt_in, confirm_redirect_url = $confirm_redirect_url, retention_days = $retention_days, updated_at = $updated_at
           WHERE id = $id`,
          fields,
        );
        if (opts.recountJoiners) await joiners.recount(f.id, joinerRuleOf(f));
      });
    },
    /** Whether any form asks its joiners to confirm (so the server must know its public URL). */
    async anyDoubleOptIn(): Promise<boolean> {
      return (await sql.get("SELECT 1 AS one FROM forms WHERE double_opt_in = 1 LIMIT 1")) !== null;
    },
    async deleteForm(id: string): Promise<void> {
      await sql.run("DELETE FROM forms WHERE id = ?", [id]);
    },
    async findFormById(id: string): Promise<Form | null> {
      const row = await sql.get<FormRow>("SELECT * FROM forms WHERE id = ?", [id]);
      return row ? toForm(row) : null;
    },
    /** One page of an owner's forms (only `ids` when given), newest first, strictly after `after`. */
    async listFormsByOwner(ownerId: string, ids: string[] | null, after: Position | null, limit: number): Promise<Form[]> {
      return (await byOwner([ownerId, ids && JSON.stringify(ids)], after, limit)).map(toForm);
    },
    /** Forms that delete their submissions after some days. */
    async listFormsWithRetention(): Promise<Form[]> {
      return (await sql.all<FormRow>("SELECT * FROM forms WHERE retention_days IS NOT NULL ORDER BY id")).map(toForm);
    },
    /** Every form (of one owner, or all), with the owner's email; for the operator's command line. */
    async listAllForms(ownerId: string | null): Promise<(Form & { ownerEmail: string })[]> {
      const rows = await sql.all<FormRow & { owner_email: string }>(
        `SELECT f.*, o.email AS owner_email FROM forms f JOIN owners o ON o.id = f.owner_id
         WHERE CAST(?1 AS TEXT) IS NULL OR f.owner_id = ?1 ORDER BY f.created_at DESC, f.id DESC`,
        [ownerId],
      );
      return rows.map((r) => ({ ...toForm(r), ownerEmail: r.owner_email }));
    },
  };
}

export type FormsRepo = ReturnType<typeof createFormsRepo>;

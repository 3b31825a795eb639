import { t } from "elysia";

/** How long a partial is kept after its last save. */
export const PARTIAL_DAYS = 30;

/** A partial as the owner's list shows it (`?status=partial`): what was typed so far, never a submission. */
export const PartialSchema = t.Object({
  id: t.String(),
  formId: t.String(),
  status: t.Literal("partial"),
  data: t.Record(t.String(), t.Unknown(), {
    description: "the values typed so far, by field name (the form's fields only; files are not saved)",
  }),
  email: t.Nullable(t.String({ description: "the address the resume link was emailed to, else one typed" })),
  createdAt: t.String({ format: "date-time" }),
  updatedAt: t.String({ format: "date-time", description: `its last save; deleted ${PARTIAL_DAYS} days after it` }),
});
export type PartialJson = {
  id: string;
  formId: string;
  status: "partial";
  data: Record<string, unknown>;
  email: string | null;
  createdAt: string;
  updatedAt: string;
};

export const PartialListSchema = t.Object({
  submissions: t.Array(PartialSchema),
  nextCursor: t.Nullable(t.String()),
});
export type PartialListJson = { submissions: PartialJson[]; nextCursor: string | null };

/** A partial as stored. */
export interface PartialRow {
  id: string;
  formId: string;
  tokenHash: string;
  data: string;
  email: string | null;
  createdAt: string;
  updatedAt: string;
}

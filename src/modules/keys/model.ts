import { t, type Static } from "elysia";
import { OneOf, UnknownField } from "../../http/schemas";
import { KEY_ROLES, type KeyRole } from "../../lib/rights";
import type { ApiKey } from "./repo";

const timestamp = t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" });
const Kind = t.Unsafe<"secret" | "publishable">({
  type: "string",
  enum: ["secret", "publishable"],
  description: "secret (fsk_…, everything) or publishable (fpk_…, submit and challenge only)",
});
const BoundForms = t.Nullable(t.Array(t.String()), {
  description: "the forms the key is bound to; null = all the team's forms",
});
const TeamId = t.String({ description: "the team the key acts in" });
const Role = t.Unsafe<KeyRole>({
  type: "string",
  enum: [...KEY_ROLES],
  description: "the key's role in its team (viewer, editor or admin), as a member's: what it may do there",
});

/** A key as `GET /keys` (and `formsvc keys list --json`) shows it: never its secret. */
export const ApiKeySchema = t.Object({
  id: t.String(),
  name: t.String(),
  owner: t.String({ description: "the email of who made it" }),
  teamId: TeamId,
  role: Role,
  kind: Kind,
  forms: BoundForms,
  prefix: t.String({ description: "the secret's first 12 characters, to recognise it by" }),
  active: t.Boolean({ description: "false once revoked" }),
  createdAt: timestamp,
  lastUsedAt: t.Nullable(t.String({ format: "date-time", description: "to the minute" })),
  revokedAt: t.Nullable(timestamp),
});
export type ApiKeyJson = Static<typeof ApiKeySchema>;

export const KeyListSchema = t.Array(ApiKeySchema, { description: "the team's keys, oldest first, revoked ones too" });

/** A new key, as `POST /keys` (and `formsvc keys create --json`) shows it: the only time its secret is shown. */
export const CreatedKeySchema = t.Object({
  id: t.String(),
  name: t.String(),
  owner: t.String({ description: "the email of who made it" }),
  teamId: TeamId,
  role: Role,
  key: t.String({ description: "the secret: shown here once, stored only as its SHA-256" }),
  kind: Kind,
  forms: BoundForms,
  createdAt: timestamp,
});
export type CreatedKey = Static<typeof CreatedKeySchema>;

/** `POST /keys`: the options of `formsvc keys create`, in one of the caller's teams. */
export const KeyCreateSchema = t.Object(
  {
    teamId: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 200,
        error: "teamId must be a team id",
        description:
          "the team the key acts in, where the caller is an admin or owner (default: a key's own team, a session's personal team)",
      }),
    ),
    role: t.Optional(
      OneOf(KEY_ROLES, "role must be viewer, editor or admin", {
        description:
          "what the key may do in its team, as a member of that role (default admin); a publishable key only submits, whatever its role",
      }),
    ),
    name: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 200,
        error: "name must be 1 to 200 characters",
        description: "a label to recognise the key by (default: default)",
      }),
    ),
    publishable: t.Optional(
      t.Boolean({
        error: "publishable must be true or false",
        description: "a key for web pages (fpk_…): it may only submit and fetch challenges",
      }),
    ),
    forms: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        maxItems: 100,
        error: "forms must be a list of 1 to 100 form ids",
        description: "bind the key to these forms of its team; leave out for all",
      }),
    ),
  },
  { additionalProperties: UnknownField },
);
export type KeyCreateBody = Static<typeof KeyCreateSchema>;

/** What `DELETE /keys/{keyId}` (and `formsvc keys revoke --json`) answers. */
export const RevokedKeySchema = t.Object({ id: t.String(), active: t.Boolean(), revokedAt: t.Nullable(timestamp) });
export type RevokedKeyJson = Static<typeof RevokedKeySchema>;

export const KeyIdParams = t.Object({
  keyId: t.String({ minLength: 1, maxLength: 200, error: "keyId must be a key id" }),
});

export const toKeyJson = (k: ApiKey): ApiKeyJson => ({
  id: k.id,
  name: k.name,
  owner: k.ownerEmail,
  teamId: k.teamId,
  role: k.role,
  kind: k.kind,
  forms: k.forms,
  prefix: k.prefix,
  active: k.active,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
});

export const toRevokedJson = (k: ApiKey): RevokedKeyJson => ({ id: k.id, active: k.active, revokedAt: k.revokedAt });

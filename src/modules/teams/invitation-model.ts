import { t, type Static } from "elysia";
import { EMAIL_PATTERN } from "../../lib/email";
import { OneOf } from "../../http/schemas";
import { ROLES } from "../../lib/rights";

const timestamp = (description: string) => t.String({ format: "date-time", description });
const RoleSchema = OneOf(ROLES, "role must be viewer, editor, admin or owner", {
  description: "the role the person gets in the team: viewer, editor, admin or owner",
});

/** A pending invitation as `GET /teams/{teamId}/invitations` shows it: never its link. */
export const InvitationSchema = t.Object(
  {
    id: t.String({ description: "the invitation's id (inv_…)" }),
    teamId: t.String(),
    email: t.String({ description: "who is invited, lower-cased" }),
    role: RoleSchema,
    invitedBy: t.String({ description: "the email of the member who invited, or `cli` for the command line" }),
    createdAt: timestamp("ISO 8601, UTC, milliseconds"),
    expiresAt: timestamp("when the link stops working: 7 days after it was sent"),
  },
  { additionalProperties: false },
);
export type InvitationJson = Static<typeof InvitationSchema>;

export const InvitationListSchema = t.Array(InvitationSchema, {
  description: "the team's invitations not yet accepted nor expired, oldest first",
});

/** `POST /teams/{teamId}/invitations`'s answer: the invitation, and whether its email goes out now. */
export const CreatedInvitationSchema = t.Object(
  {
    ...InvitationSchema.properties,
    smtpConfigured: t.Boolean({
      description:
        "whether FORMSVC_SMTP_URL is set; while it is not, the email is queued and sent only once it is (it also waits for FORMSVC_PUBLIC_URL, which its link starts with)",
    }),
  },
  { additionalProperties: false },
);
export type CreatedInvitationJson = Static<typeof CreatedInvitationSchema>;

/** `POST /teams/{teamId}/invitations`: who, and with which role. */
export const InvitationCreateSchema = t.Object(
  {
    email: t.String({
      minLength: 1,
      maxLength: 320,
      pattern: EMAIL_PATTERN,
      error: "email must be an email address",
      description: "the person's email (any case, whitespace around it ignored); the link is sent there",
    }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);
export type InvitationCreateBody = Static<typeof InvitationCreateSchema>;

/** `POST /invitations/accept`: the link's token, and a password unless a session of the invited person is sent. */
export const InvitationAcceptSchema = t.Object(
  {
    token: t.String({
      minLength: 1,
      maxLength: 200,
      error: "token must be the token of the link",
      description: "the last part of the emailed link, `/invitations/<token>`",
    }),
    password: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 4096,
        error: "password must be a string of 1 to 4096 characters",
        description:
          "for a person without an account, the password to set (12 to 1024 characters); for one with an account, their password (not needed with a session of theirs)",
      }),
    ),
  },
  { additionalProperties: true, description: "JSON; other fields are ignored" },
);
export type InvitationAcceptBody = Static<typeof InvitationAcceptSchema>;

/** What accepting an invitation came to. */
export const InvitationAcceptedSchema = t.Object(
  {
    teamId: t.String(),
    teamName: t.String(),
    role: RoleSchema,
    email: t.String({ description: "the member's email" }),
    passwordSet: t.Boolean({
      description:
        "true when the password was set here: the person had no account (it is made now) or none with a password",
    }),
  },
  { additionalProperties: false },
);
export type InvitationAcceptedJson = Static<typeof InvitationAcceptedSchema>;

export const InvitationParams = t.Object({ teamId: t.String(), invitationId: t.String() });
export const TeamParams = t.Object({ teamId: t.String() });

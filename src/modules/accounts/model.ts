import { t, type Static } from "elysia";

/** The owner a login or a session acts for, as `POST /auth/login` and `GET /auth/me` answer it. */
export const AccountSchema = t.Object(
  {
    id: t.String({ description: "the owner's id (own_…)" }),
    email: t.String({
      description: "the owner's email, lower-cased: what they log in with and where notifications go",
    }),
    createdAt: t.String({ format: "date-time", description: "ISO 8601, UTC, milliseconds" }),
  },
  { additionalProperties: false },
);
export type AccountJson = Static<typeof AccountSchema>;

/** `POST /auth/login`: an owner's email and the password set with `formsvc owners set-password`. */
export const LoginBodySchema = t.Object(
  {
    email: t.String({
      minLength: 1,
      maxLength: 320,
      error: "email must be an email address",
      description: "the owner's email (any case)",
    }),
    password: t.String({
      minLength: 1,
      maxLength: 4096,
      error: "password must be a string of 1 to 4096 characters",
      description: "the owner's password",
    }),
  },
  { description: "JSON; other fields are ignored" },
);
export type LoginBody = Static<typeof LoginBodySchema>;

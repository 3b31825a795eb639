import { escapeHtml } from "../../lib/template";
import { MIN_PASSWORD_LENGTH } from "../accounts/password";
import { personPage } from "../dropin/form-page";
import type { InvitationAcceptedJson } from "./invitation-model";
import type { OpenInvitation } from "./invitations";

const esc = (v: string) => escapeHtml(v);
const notice = (error: string | undefined) => (error ? `<p class="notice" role="alert">${esc(error)}</p>` : "");

/** The address, shown and sent with the form, so that a password manager files the password under it. */
const emailField = (email: string, autocomplete: string) =>
  `<div class="field"><label for="email">Email</label><input id="email" name="email" type="email" value="${esc(email)}" autocomplete="${autocomplete}" readonly></div>`;

const passwordField = (label: string, autocomplete: string, hint: string, minLength: number) =>
  `<div class="field"><label for="password">${esc(label)}</label><p class="hint" id="password-hint">${esc(hint)}</p><input id="password" name="password" type="password" autocomplete="${autocomplete}" minlength="${minLength}" required aria-describedby="password-hint"></div>`;

/**
 * The page of an invitation's link: which team, which role, who invites, and the form that accepts
 * (it posts to the page's own address). Its person logged in joins with one button; one with an
 * account gives their password; anyone else chooses one. `viewer`: the owner id of the session the
 * page was opened with, if any; `error`: why the last post was refused.
 */
export function invitationPage(inv: OpenInvitation, viewer: string | null, error?: string): string {
  const from = inv.invitedBy === "cli" ? "The operator of this formsvc invites" : `${inv.invitedBy} invites`;
  const theirs = inv.ownerId !== null && viewer === inv.ownerId;
  const [fields, button] = theirs
    ? [`<p>You are logged in as ${esc(inv.email)}.</p>`, `Join ${inv.teamName}`]
    : inv.hasAccount
      ? [
          emailField(inv.email, "username") +
            passwordField("Password", "current-password", `Log in as ${inv.email} to accept.`, 1),
          "Log in and join",
        ]
      : [
          emailField(inv.email, "username") +
            passwordField(
              "Choose a password",
              "new-password",
              `For your new formsvc account: ${MIN_PASSWORD_LENGTH} characters or more; a few words make a good one.`,
              MIN_PASSWORD_LENGTH,
            ),
          "Create my account and join",
        ];
  return personPage(
    `Join ${inv.teamName}`,
    `<section class="card"><p class="form-name">Invitation to a formsvc team</p><h1>Join ${esc(inv.teamName)}</h1>
<p>${esc(from)} ${esc(inv.email)} to the team as <strong>${esc(inv.role)}</strong>.</p></section>
<form method="post">${notice(error)}${fields}<button type="submit">${esc(button)}</button></form>`,
  );
}

/** After accepting: the team joined, and the way to the dashboard (the person is logged in). */
export function acceptedPage(accepted: InvitationAcceptedJson): string {
  return personPage(
    `You joined ${accepted.teamName}`,
    `<section class="card"><h1><span class="done" aria-hidden="true">✓</span> You joined ${esc(accepted.teamName)}</h1>
<p>You are a member as <strong>${esc(accepted.role)}</strong>, logged in as ${esc(accepted.email)}.</p>
<p><a href="/dashboard">Open the dashboard</a></p></section>`,
  );
}

/** A link wrong, used, replaced or expired: what to do instead. */
export function refusedPage(): string {
  return personPage(
    "Invitation link not valid",
    `<section class="card"><h1>This invitation link does not work</h1>
<p class="notice" role="alert">It is wrong, used or expired: an invitation works once, for 7 days, and a newer one to the same address replaces it. Ask the team for a new invitation.</p>
<p><a href="/dashboard">Open the dashboard</a></p></section>`,
  );
}

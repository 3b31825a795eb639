// What the dashboard asks of the API, in one place, only through formsvc's typed client: a call
// the server does not take, or an answer the page reads wrongly, fails the type check.
import type {
  Account,
  Analytics,
  AnalyticsQuery,
  AuditEvent,
  BulkRequest,
  BulkResult,
  CreatedWebhook,
  Delivery,
  Form,
  FormListItem,
  FormType,
  FormUpdateRequest,
  Invitation,
  KeyRole,
  ListedSubmission,
  MemberNotification,
  Note,
  Passkey,
  Revision,
  Role,
  SearchQuery,
  SearchResults,
  Session,
  SpamFilterStatus,
  Submission,
  SubmissionDetail,
  SubmissionState,
  SubmissionUpdate,
  Team,
  TeamMember,
  Webhook,
  WebhookFormat,
} from "../../client/index";
import { startAuthentication, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import { client } from "./api";

export type FormDetails = Form;

export type { Account, ApiKey, CreatedKey, CreatedWebhook, Delivery, SearchHit, Webhook } from "../../client/index";

const enc = encodeURIComponent;

export const auth = {
  login: (email: string, password: string): Promise<Account> => client.login({ email, password }),
  secondFactor: (challenge: string, code: string): Promise<Account> => client.loginSecondFactor({ challenge, code }),
  startTotp: () => client.startTotp(),
  confirmTotp: (code: string) => client.confirmTotp({ code }),
  renewRecoveryCodes: (code: string) => client.renewRecoveryCodes({ code }),
  disableTotp: (code: string) => client.disableTotp({ code }),
  logout: () => client.logout(),
  me: (): Promise<Account> => client.me(),
  update: (change: { timeZone?: string }): Promise<Account> => client.updateMe(change),
  sessions: (): Promise<Session[]> => client.listSessions(),
  endSession: (id: string) => client.endSession(id),
  endOtherSessions: () => client.endOtherSessions(),
  setup: (token: string, email: string, password: string): Promise<Account> => client.setup({ token, email, password }),
  requestReset: (email: string) => client.requestPasswordReset({ email }),
  confirmReset: (token: string, password: string) => client.confirmPasswordReset({ token, password }),
  /** The ways to sign in besides a password (OpenID Connect when configured, passkeys or why not); none when they cannot be read. */
  providers: async (): Promise<Providers> => {
    const res = await fetch(`${location.origin}/api/v1/auth/providers`).catch(() => null);
    return res?.ok
      ? await res.json()
      : { oidc: null, passkeys: { available: false, reason: "formsvc did not answer" } };
  },
  passkeys: (): Promise<Passkey[]> => client.listPasskeys(),
  /** Makes a passkey with the browser's own dialog, and keeps it under `name`. */
  addPasskey: async (name: string): Promise<Passkey> => {
    const options = await client.passkeyRegistrationOptions();
    const response = await ceremony(() => startRegistration({ optionsJSON: options as never }));
    return client.registerPasskey({ name, response: response as never });
  },
  renamePasskey: (id: string, name: string): Promise<Passkey> => client.renamePasskey(id, { name }),
  removePasskey: (id: string) => client.removePasskey(id),
  /** Signs in with a passkey the browser offers (discoverable: no email asked). */
  passkeyLogin: async (): Promise<Account> => {
    const options = await client.passkeyLoginOptions();
    const response = await ceremony(() => startAuthentication({ optionsJSON: options as never }));
    return client.loginWithPasskey(response as never);
  },
};

export interface Providers {
  oidc: { name: string; start: string } | null;
  passkeys: { available: boolean; reason?: string };
}

/** The browser's passkey dialog; closing it (or its timing out) says so in words, not as the browser's error name. */
async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof WebAuthnError && e.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED")
      throw new Error("This device holds one of your passkeys already: add a passkey from another device.");
    if (e instanceof Error && (e.name === "NotAllowedError" || e.name === "AbortError"))
      throw new Error("The browser's passkey dialog was closed or timed out; nothing was changed.");
    throw e;
  }
}

export const forms = {
  /** A page of one team's forms (every team's while the server has no teams). */
  list: (cursor?: string, teamId?: string) => client.listForms({ limit: 50, cursor, teamId }),
  get: (id: string) => client.getForm(id),
  // The API leaves email off for a form it creates (scripts ask for what they want); a person creating
  // one in the dashboard expects to hear of its submissions.
  create: (body: { name: string; formType: FormType; description?: string; teamId?: string }) =>
    client.createForm({ ...body, emailSettings: { enabled: true, developerNotificationsEnabled: true } }),
  update: (id: string, body: FormUpdateRequest) => client.updateForm(id, body),
  remove: (id: string) => client.deleteForm(id),
  /** To another team of which the caller is an admin or owner, as of the one it is in. */
  move: (id: string, teamId: string): Promise<Form> => client.moveForm(id, teamId),
  analytics: (id: string, query: AnalyticsQuery): Promise<Analytics> => client.getAnalytics(id, query),
};

export const teams = {
  list: (): Promise<Team[]> => client.listTeams(),
  create: (name: string): Promise<Team> => client.createTeam({ name }),
  rename: (id: string, name: string): Promise<Team> => client.updateTeam(id, { name }),
  remove: (id: string) => client.deleteTeam(id),
  members: (id: string): Promise<TeamMember[]> => client.listMembers(id),
  setRole: (id: string, ownerId: string, role: Role) => client.setMemberRole(id, ownerId, role),
  removeMember: (id: string, ownerId: string) => client.removeMember(id, ownerId),
  invitations: (id: string): Promise<Invitation[]> => client.listInvitations(id),
  invite: (id: string, email: string, role: Role) => client.inviteMember(id, { email, role }),
  cancelInvitation: (id: string, invitationId: string) => client.cancelInvitation(id, invitationId),
  /** The team's newest events, newest first. */
  audit: (id: string): Promise<AuditEvent[]> => client.teamAudit(id, { limit: 100 }),
};

/** What an inbox list keeps: states (comma-separated), a tag, an assignee's email or `none`. */
export type InboxFilter = { state?: string; tag?: string; assignee?: string };

export const submissions = {
  list: (formId: string, status: "inbox" | "spam", cursor?: string, limit = 25, filter: InboxFilter = {}) =>
    client.listSubmissions(formId, { status, cursor, limit, ...filter }),
  /** Answers saved halfway on the hosted page (save and resume). */
  partials: (formId: string, cursor?: string, limit = 25) => client.listPartials(formId, { cursor, limit }),
  /** Changes a submission's state, assignee or tags; answers it as read. */
  update: (formId: string, id: string, change: SubmissionUpdate): Promise<SubmissionDetail> =>
    client.updateSubmission(formId, id, change),
  /** One action on many submissions of a form, all or none. */
  bulk: (formId: string, body: BulkRequest): Promise<BulkResult> => client.bulkSubmissions(formId, body),
  notes: (formId: string, id: string): Promise<Note[]> => client.listNotes(formId, id),
  /** What the submission held before each change its submitter made (editableDays), newest first. */
  revisions: (formId: string, id: string): Promise<Revision[]> => client.listRevisions(formId, id),
  addNote: (formId: string, id: string, text: string): Promise<Note> => client.addNote(formId, id, text),
  deleteNote: (formId: string, id: string, noteId: string) => client.deleteNote(formId, id, noteId),
  get: (formId: string, id: string) => client.getSubmission(formId, id),
  remove: (formId: string, id: string) => client.deleteSubmission(formId, id),
  move: (formId: string, id: string, to: "spam" | "not-spam") =>
    to === "spam" ? client.markSpam(formId, id) : client.markNotSpam(formId, id),
  exportUrl: (formId: string, format: "csv" | "json") =>
    `/api/v1/forms/${enc(formId)}/submissions/export?format=${format}`,
  /** The query language's words within one form's folder and the inbox's filters, newest first. */
  search: (query: SearchQuery): Promise<SearchResults> => client.searchSubmissions(query),
  /** What the owner's spam filter has learned from the marks. */
  spamFilter: (teamId: string): Promise<SpamFilterStatus> => client.spamFilter({ teamId }),
};

export const notifications = {
  /** The owner notification as it would be sent; `template` not yet saved (null: formsvc's own email). */
  preview: (formId: string, template: { subject: string; text: string } | null) =>
    client.previewNotification(formId, { template }),
  /** Whether the form's owner notification comes to the logged-in member. */
  mine: (formId: string): Promise<MemberNotification> => client.myNotification(formId),
  setMine: (formId: string, notify: boolean): Promise<MemberNotification> => client.setMyNotification(formId, notify),
};

export const keys = {
  /** A team's keys (the session's personal team's without `teamId`). */
  list: (teamId?: string) => client.listKeys({ teamId }),
  create: (body: {
    name: string;
    kind: "secret" | "publishable";
    forms: string[] | null;
    teamId?: string;
    role?: KeyRole;
  }) =>
    client.createKey({
      name: body.name,
      teamId: body.teamId,
      role: body.role,
      ...(body.kind === "publishable" ? { publishable: true } : {}),
      ...(body.forms ? { forms: body.forms } : {}),
    }),
  revoke: (id: string) => client.revokeKey(id),
};

export const webhooks = {
  list: (formId: string): Promise<Webhook[]> => client.listWebhooks(formId),
  add: (formId: string, body: { url: string; format: WebhookFormat }): Promise<CreatedWebhook> =>
    client.createWebhook(formId, body),
  remove: (id: string) => client.deleteWebhook(id),
  deliveries: (id: string): Promise<Delivery[]> => client.listDeliveries(id),
  replay: (deliveryId: string): Promise<Delivery> => client.replayDelivery(deliveryId),
};

export type {
  Analytics,
  AuditEvent,
  Form,
  FormListItem,
  Invitation,
  KeyRole,
  ListedSubmission,
  Note,
  Revision,
  Role,
  SpamFilterStatus,
  Submission,
  SubmissionDetail,
  SubmissionState,
  Team,
  TeamMember,
};

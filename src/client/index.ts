/**
 * The formsvc client: every endpoint, pagination as async iterators, 429s waited out,
 * safe retries. No dependencies; runs wherever `fetch` does (Bun, Node 18+, Deno, browsers).
 */
import type {
  Account,
  AccountUpdateRequest,
  Session,
  Analytics,
  CreatedWebhook,
  Delivery,
  AnalyticsQuery,
  ApiKey,
  AuditEvent,
  CreatedInvitation,
  Invitation,
  InvitationAccepted,
  InvitationAcceptRequest,
  InvitationCreateRequest,
  CreatedKey,
  Deleted,
  ExportFormat,
  Form,
  FormCreateRequest,
  FormList,
  FormListItem,
  FormListQuery,
  FormUpdateRequest,
  KeyCreateRequest,
  LoginRequest,
  Passkey,
  PasskeyRegistrationRequest,
  PasskeyRenameRequest,
  WebAuthnJson,
  RecoveryCodes,
  SecondFactorRequest,
  TotpCodeRequest,
  TotpConfirmRequest,
  TotpEnrolment,
  MemberNotification,
  MemberNotificationRequest,
  ResetAccepted,
  ResetConfirmRequest,
  ResetRequest,
  SetupRequest,
  MovedSubmission,
  NewWebhook,
  NotificationPreview,
  NotificationPreviewRequest,
  PageQuery,
  RateLimit,
  RevokedKey,
  Role,
  BulkRequest,
  BulkResult,
  ListedSubmission,
  Note,
  Revision,
  SubmissionDetail,
  SubmissionUpdate,
  SubmissionList,
  PartialList,
  SearchQuery,
  SearchResults,
  SubmissionQuery,
  SubmitRequest,
  SubmitResult,
  Webhook,
  SpamFilterStatus,
  Team,
  TeamMember,
  TeamRequest,
} from "./types";

export type * from "./types";

/** The part of `fetch` the client uses; pass your own for tests, proxies or instrumentation. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface FormsvcClientOptions {
  /** e.g. "https://forms.example.com/api/v1" */
  baseUrl: string;
  /** Omitted in a page of formsvc's own origin: the browser's session cookie goes with each request instead. */
  apiKey?: string;
  fetch?: FetchLike;
  /** Retries after a 429, a network error or a 5xx (default 2). */
  maxRetries?: number;
  /** Per-attempt timeout in milliseconds (default 30 s). */
  timeoutMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface SubmitOptions extends CallOptions {
  /** Makes retries safe: the server stores a keyed submission once. `true` generates a key. */
  idempotencyKey?: string | true;
}

/** Every failure: an HTTP error (status, the server's message, code, requestId) or a network one (status 0). */
export class FormsvcError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, on 429s. */
  readonly retryAfter: number | undefined;
  /** SECOND_FACTOR_REQUIRED: what `loginSecondFactor` finishes the login with (5 minutes). */
  readonly challenge: string | undefined;

  constructor(init: {
    status: number;
    message: string;
    code?: string;
    requestId?: string;
    retryAfter?: number;
    challenge?: string;
  }) {
    super(init.message);
    this.name = "FormsvcError";
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.challenge = init.challenge;
  }
}

interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether a network error or a 5xx may be retried (GETs, and keyed submits). */
  idempotent: boolean;
}

const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 8_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

const jittered = (attempt: number) => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt) * (0.5 + Math.random());

const numberHeader = (headers: Headers, name: string) => {
  const v = headers.get(name);
  return v === null || v === "" || !Number.isFinite(Number(v)) ? undefined : Number(v);
};

const newIdempotencyKey = () =>
  globalThis.crypto?.randomUUID?.() ??
  `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

export class FormsvcClient {
  /** The rate-limit headers of the last response, or null before the first. */
  rateLimit: RateLimit | null = null;

  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: FetchLike;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;

  constructor(options: FormsvcClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * Opens a login session (the server's session cookie, which a browser keeps and sends on each
   * later request of its origin; other runtimes need a fetch that keeps cookies). A page must be of
   * the server's own origin: other origins are refused (403 CSRF). A person with a second factor
   * gets a FormsvcError SECOND_FACTOR_REQUIRED whose `challenge` `loginSecondFactor` takes.
   */
  login(credentials: LoginRequest, options?: CallOptions): Promise<Account> {
    return this.request({ method: "POST", path: "/auth/login", body: credentials, idempotent: false }, options);
  }

  /** Finishes a login with its challenge and a TOTP or recovery code (each accepted once); opens the session as `login`. */
  loginSecondFactor(body: SecondFactorRequest, options?: CallOptions): Promise<Account> {
    return this.request({ method: "POST", path: "/auth/login/second-factor", body, idempotent: false }, options);
  }

  /** Starts TOTP enrolment for the session's person: the otpauth:// URI, its QR code and the secret. */
  startTotp(options?: CallOptions): Promise<TotpEnrolment> {
    return this.request({ method: "POST", path: "/auth/totp", idempotent: false }, options);
  }

  /** Turns TOTP on with a code of the new secret; answers the 10 recovery codes, shown this once. */
  confirmTotp(body: TotpConfirmRequest, options?: CallOptions): Promise<RecoveryCodes> {
    return this.request({ method: "POST", path: "/auth/totp/confirm", body, idempotent: false }, options);
  }

  /** For a TOTP or recovery code, 10 new recovery codes in place of every old one; shown this once. */
  renewRecoveryCodes(body: TotpCodeRequest, options?: CallOptions): Promise<RecoveryCodes> {
    return this.request({ method: "POST", path: "/auth/totp/recovery-codes", body, idempotent: false }, options);
  }

  /** For a TOTP or recovery code, turns TOTP off (to enrol a new phone); sessions stay. */
  async disableTotp(body: TotpCodeRequest, options?: CallOptions): Promise<void> {
    await this.send({ method: "POST", path: "/auth/totp/disable", body, idempotent: false }, options);
  }

  /** The session owner's passkeys, oldest first. */
  listPasskeys(options?: CallOptions): Promise<Passkey[]> {
    return this.request({ method: "GET", path: "/auth/passkeys", idempotent: true }, options);
  }

  /** Begins registering a passkey: the options for the browser (409 PASSKEYS_UNAVAILABLE where the server offers none). */
  passkeyRegistrationOptions(options?: CallOptions): Promise<WebAuthnJson> {
    return this.request({ method: "POST", path: "/auth/passkeys/options", idempotent: false }, options);
  }

  /** Keeps the passkey the browser made from `passkeyRegistrationOptions`, under its name. */
  registerPasskey(body: PasskeyRegistrationRequest, options?: CallOptions): Promise<Passkey> {
    return this.request({ method: "POST", path: "/auth/passkeys", body, idempotent: false }, options);
  }

  renamePasskey(passkeyId: string, body: PasskeyRenameRequest, options?: CallOptions): Promise<Passkey> {
    return this.request(
      { method: "PATCH", path: `/auth/passkeys/${encodeURIComponent(passkeyId)}`, body, idempotent: true },
      options,
    );
  }

  /** Forgets one of the session owner's passkeys (a 404 for another person's or an unknown one). */
  async removePasskey(passkeyId: string, options?: CallOptions): Promise<void> {
    await this.send(
      { method: "DELETE", path: `/auth/passkeys/${encodeURIComponent(passkeyId)}`, idempotent: false },
      options,
    );
  }

  /** Begins a login with a passkey: options naming no credential (the browser offers those it holds). */
  passkeyLoginOptions(options?: CallOptions): Promise<WebAuthnJson> {
    return this.request({ method: "POST", path: "/auth/passkeys/login/options", body: {}, idempotent: false }, options);
  }

  /** Logs in with the browser's answer to `passkeyLoginOptions`; opens the session as `login` (no second factor asked). */
  loginWithPasskey(response: WebAuthnJson, options?: CallOptions): Promise<Account> {
    return this.request(
      { method: "POST", path: "/auth/passkeys/login", body: { response }, idempotent: false },
      options,
    );
  }

  /** First run: sets the first owner with the token of the link `formsvc serve` printed, and logs them in (as `login`). */
  setup(body: SetupRequest, options?: CallOptions): Promise<Account> {
    return this.request({ method: "POST", path: "/auth/setup", body, idempotent: false }, options);
  }

  /** Asks for a password reset email; the same answer whether or not the email is an owner's. */
  requestPasswordReset(body: ResetRequest, options?: CallOptions): Promise<ResetAccepted> {
    return this.request({ method: "POST", path: "/auth/reset", body, idempotent: false }, options);
  }

  /** Sets a new password with the token of the emailed link; every session of the owner ends. */
  async confirmPasswordReset(body: ResetConfirmRequest, options?: CallOptions): Promise<void> {
    await this.send({ method: "POST", path: "/auth/reset/confirm", body, idempotent: false }, options);
  }

  /** Ends the session the request carries; later requests with it are a 401. */
  async logout(options?: CallOptions): Promise<void> {
    await this.send({ method: "POST", path: "/auth/logout", idempotent: false }, options);
  }

  /** The owner the session logs in as; 401 without a live session (an API key is no session). */
  me(options?: CallOptions): Promise<Account> {
    return this.request({ method: "GET", path: "/auth/me", idempotent: true }, options);
  }

  /** Changes the session's owner: the IANA time zone emails write times in (a 400 for an unknown zone). */
  updateMe(body: AccountUpdateRequest, options?: CallOptions): Promise<Account> {
    return this.request({ method: "PATCH", path: "/auth/me", body, idempotent: true }, options);
  }

  /** The session owner's live sessions, newest first; `current` marks this one. */
  listSessions(options?: CallOptions): Promise<Session[]> {
    return this.request({ method: "GET", path: "/auth/sessions", idempotent: true }, options);
  }

  /** Ends one of the session owner's sessions at once (a 404 for another person's or an unknown one). */
  async endSession(sessionId: string, options?: CallOptions): Promise<void> {
    await this.send(
      { method: "DELETE", path: `/auth/sessions/${encodeURIComponent(sessionId)}`, idempotent: false },
      options,
    );
  }

  /** Ends every session of the session owner but this one; answers how many ended. */
  async endOtherSessions(options?: CallOptions): Promise<number> {
    const body = await this.request<{ ended: number }>(
      { method: "DELETE", path: "/auth/sessions", idempotent: true },
      options,
    );
    return body.ended;
  }

  /** One page of the caller's forms (of one team with `teamId`), newest first. */
  listForms(query: FormListQuery = {}, options?: CallOptions): Promise<FormList> {
    return this.request({ method: "GET", path: "/forms/list", query: { ...query }, idempotent: true }, options);
  }

  /** Every form, following nextCursor with the same limit. */
  allForms(query: Omit<FormListQuery, "cursor"> = {}, options?: CallOptions): AsyncGenerator<FormListItem> {
    return this.walk((cursor) =>
      this.listForms({ ...query, cursor }, options).then((p) => ({ items: p.forms, nextCursor: p.nextCursor })),
    );
  }

  getForm(formId: string, options?: CallOptions): Promise<Form> {
    return this.request({ method: "GET", path: `/forms/${encodeURIComponent(formId)}`, idempotent: true }, options);
  }

  /** Distinct waitlist joiners (0 while the form's counter is off). */
  async getUsersJoined(formId: string, options?: CallOptions): Promise<number> {
    const body = await this.request<{ usersJoined: number }>(
      { method: "GET", path: `/forms/${encodeURIComponent(formId)}/users-joined`, idempotent: true },
      options,
    );
    return body.usersJoined;
  }

  /** Stores a submission; retried after network errors and 5xx only when it carries an idempotency key. */
  submit(submission: SubmitRequest, options: SubmitOptions = {}): Promise<SubmitResult> {
    const key = options.idempotencyKey === true ? newIdempotencyKey() : options.idempotencyKey;
    return this.request(
      {
        method: "POST",
        path: "/forms/submit",
        body: submission,
        headers: key ? { "idempotency-key": key } : {},
        idempotent: key !== undefined,
      },
      options,
    );
  }

  /** One page of a form's submissions (the inbox, or `status: "spam"`), newest first. */
  listSubmissions(formId: string, query: SubmissionQuery = {}, options?: CallOptions): Promise<SubmissionList> {
    return this.request(
      {
        method: "GET",
        path: `/forms/${encodeURIComponent(formId)}/submissions`,
        query: { ...query },
        idempotent: true,
      },
      options,
    );
  }

  /** One page of the answers visitors saved halfway on a form's hosted page (`?status=partial`), newest first. */
  listPartials(formId: string, query: PageQuery = {}, options?: CallOptions): Promise<PartialList> {
    return this.request(
      {
        method: "GET",
        path: `/forms/${encodeURIComponent(formId)}/submissions`,
        query: { ...query, status: "partial" },
        idempotent: true,
      },
      options,
    );
  }

  /** Every submission of a form, newest first, following nextCursor with the same limit. */
  allSubmissions(
    formId: string,
    query: Omit<SubmissionQuery, "cursor"> = {},
    options?: CallOptions,
  ): AsyncGenerator<ListedSubmission> {
    return this.walk((cursor) =>
      this.listSubmissions(formId, { ...query, cursor }, options).then((p) => ({
        items: p.submissions,
        nextCursor: p.nextCursor,
      })),
    );
  }

  /** One page of a full-text search of submissions, newest first, each with the fragments that matched. */
  searchSubmissions(query: SearchQuery, options?: CallOptions): Promise<SearchResults> {
    const { spam, ...rest } = query;
    return this.request(
      {
        method: "GET",
        path: "/submissions/search",
        query: { ...rest, spam: spam === undefined ? undefined : String(spam) },
        idempotent: true,
      },
      options,
    );
  }

  getAnalytics(formId: string, query: AnalyticsQuery = {}, options?: CallOptions): Promise<Analytics> {
    return this.request(
      { method: "GET", path: `/forms/${encodeURIComponent(formId)}/analytics`, query: { ...query }, idempotent: true },
      options,
    );
  }

  /** A form's webhooks, oldest first (never their secrets). */
  listWebhooks(formId: string, options?: CallOptions): Promise<Webhook[]> {
    return this.request(
      { method: "GET", path: `/forms/${encodeURIComponent(formId)}/webhooks`, idempotent: true },
      options,
    );
  }

  /** Adds a webhook; the answer carries its signing secret (standard format), shown this once. */
  createWebhook(formId: string, webhook: NewWebhook, options?: CallOptions): Promise<CreatedWebhook> {
    return this.request(
      { method: "POST", path: `/forms/${encodeURIComponent(formId)}/webhooks`, body: webhook, idempotent: false },
      options,
    );
  }

  /** Removes a webhook with its deliveries. */
  deleteWebhook(webhookId: string, options?: CallOptions): Promise<{ id: string; deleted: true }> {
    return this.request(
      { method: "DELETE", path: `/webhooks/${encodeURIComponent(webhookId)}`, idempotent: false },
      options,
    );
  }

  /** A webhook's deliveries, newest first. */
  listDeliveries(webhookId: string, query: { limit?: number } = {}, options?: CallOptions): Promise<Delivery[]> {
    return this.request(
      {
        method: "GET",
        path: `/webhooks/${encodeURIComponent(webhookId)}/deliveries`,
        query: { ...query },
        idempotent: true,
      },
      options,
    );
  }

  /** Sends a delivery again, with the same webhook-id. */
  replayDelivery(deliveryId: string, options?: CallOptions): Promise<Delivery> {
    return this.request(
      { method: "POST", path: `/deliveries/${encodeURIComponent(deliveryId)}/replay`, idempotent: false },
      options,
    );
  }

  /** A new form of the key's owner; only `name` is required. Needs a secret key of all the owner's forms. */
  createForm(form: FormCreateRequest, options?: CallOptions): Promise<Form> {
    return this.request({ method: "POST", path: "/forms", body: form, idempotent: false }, options);
  }

  /** Changes only the fields given; `retentionDays: null` keeps submissions forever. */
  updateForm(formId: string, changes: FormUpdateRequest, options?: CallOptions): Promise<Form> {
    return this.request(
      { method: "PATCH", path: `/forms/${encodeURIComponent(formId)}`, body: changes, idempotent: false },
      options,
    );
  }

  /** Deletes the form with all its submissions. */
  deleteForm(formId: string, options?: CallOptions): Promise<Deleted> {
    return this.request({ method: "DELETE", path: `/forms/${encodeURIComponent(formId)}`, idempotent: false }, options);
  }

  /** A team's API keys (default: a key's own team, a session's personal team), oldest first, revoked ones too; never a secret. */
  listKeys(query: { teamId?: string } = {}, options?: CallOptions): Promise<ApiKey[]> {
    return this.request({ method: "GET", path: "/keys", query: { ...query }, idempotent: true }, options);
  }

  /** A new API key; its secret (`key`) is in this answer only. */
  createKey(key: KeyCreateRequest = {}, options?: CallOptions): Promise<CreatedKey> {
    return this.request({ method: "POST", path: "/keys", body: key, idempotent: false }, options);
  }

  /** Revokes a key of the owner: every later request with it is refused (401). */
  revokeKey(keyId: string, options?: CallOptions): Promise<RevokedKey> {
    return this.request({ method: "DELETE", path: `/keys/${encodeURIComponent(keyId)}`, idempotent: false }, options);
  }

  /** The caller's teams with its role in each: a session's memberships, a key's one team. */
  listTeams(options?: CallOptions): Promise<Team[]> {
    return this.request({ method: "GET", path: "/teams", idempotent: true }, options);
  }

  /** A new team, the person logged in its owner (an API key cannot make one: 403 KEY_SCOPE). */
  createTeam(team: TeamRequest, options?: CallOptions): Promise<Team> {
    return this.request({ method: "POST", path: "/teams", body: team, idempotent: false }, options);
  }

  /** Renames a team (admins and owners). */
  updateTeam(teamId: string, team: TeamRequest, options?: CallOptions): Promise<Team> {
    return this.request({ method: "PATCH", path: this.teamPath(teamId), body: team, idempotent: true }, options);
  }

  /** Deletes a team with its keys and members (owners); 409 for a personal team or one that still has forms. */
  deleteTeam(teamId: string, options?: CallOptions): Promise<Deleted> {
    return this.request({ method: "DELETE", path: this.teamPath(teamId), idempotent: false }, options);
  }

  /** A team's members with their roles, oldest first. */
  listMembers(teamId: string, options?: CallOptions): Promise<TeamMember[]> {
    return this.request({ method: "GET", path: `${this.teamPath(teamId)}/members`, idempotent: true }, options);
  }

  /** Gives a member another role; only an owner makes or changes an owner, and the last owner stays one. */
  setMemberRole(teamId: string, ownerId: string, role: Role, options?: CallOptions): Promise<TeamMember> {
    return this.request(
      { method: "PATCH", path: this.memberPath(teamId, ownerId), body: { role }, idempotent: true },
      options,
    );
  }

  /** Takes a member out of a team, or (with one's own id) leaves it; never its last owner. */
  removeMember(teamId: string, ownerId: string, options?: CallOptions): Promise<TeamMember> {
    return this.request({ method: "DELETE", path: this.memberPath(teamId, ownerId), idempotent: false }, options);
  }

  /** Moves a form to another team; the caller must be an admin or owner of both. */
  moveForm(formId: string, teamId: string, options?: CallOptions): Promise<Form> {
    return this.request(
      { method: "POST", path: `/forms/${encodeURIComponent(formId)}/move`, body: { teamId }, idempotent: true },
      options,
    );
  }

  /** A team's audit trail, newest first (admins and owners); `limit` 1 to 1000, default 100. */
  teamAudit(teamId: string, query: { limit?: number } = {}, options?: CallOptions): Promise<AuditEvent[]> {
    return this.request(
      { method: "GET", path: `${this.teamPath(teamId)}/audit`, query: { ...query }, idempotent: true },
      options,
    );
  }

  /** Invites a person to a team with a role: one email with a link that works once, for 7 days (needs members.manage). */
  inviteMember(teamId: string, body: InvitationCreateRequest, options?: CallOptions): Promise<CreatedInvitation> {
    return this.request(
      { method: "POST", path: `/teams/${encodeURIComponent(teamId)}/invitations`, body, idempotent: false },
      options,
    );
  }

  /** The team's invitations not yet accepted nor expired, oldest first. */
  listInvitations(teamId: string, options?: CallOptions): Promise<Invitation[]> {
    return this.request(
      { method: "GET", path: `/teams/${encodeURIComponent(teamId)}/invitations`, idempotent: true },
      options,
    );
  }

  /** Withdraws a pending invitation: its link stops working. */
  async cancelInvitation(teamId: string, invitationId: string, options?: CallOptions): Promise<void> {
    await this.send(
      {
        method: "DELETE",
        path: `/teams/${encodeURIComponent(teamId)}/invitations/${encodeURIComponent(invitationId)}`,
        idempotent: false,
      },
      options,
    );
  }

  /** Accepts an invitation with its link's token: with the invited person's session, their password, or a new one (which makes their account and logs them in). */
  acceptInvitation(body: InvitationAcceptRequest, options?: CallOptions): Promise<InvitationAccepted> {
    return this.request({ method: "POST", path: "/invitations/accept", body, idempotent: false }, options);
  }

  /** One submission of a form, inbox or spam, with the folder it is in. */
  getSubmission(formId: string, submissionId: string, options?: CallOptions): Promise<SubmissionDetail> {
    return this.request({ method: "GET", path: this.submissionPath(formId, submissionId), idempotent: true }, options);
  }

  /** One submission as a PDF (its labels and values in the form's order, its files listed): a Blob of type application/pdf. */
  async submissionPdf(formId: string, submissionId: string, options?: CallOptions): Promise<Blob> {
    const res = await this.send(
      { method: "GET", path: `${this.submissionPath(formId, submissionId)}/pdf`, idempotent: true },
      options,
    );
    return new Blob([await res.arrayBuffer()], { type: "application/pdf" });
  }

  /** The form's owner notification as it would be sent, rendered from its latest submission (or a sample); sends nothing. */
  previewNotification(
    formId: string,
    body: NotificationPreviewRequest = {},
    options?: CallOptions,
  ): Promise<NotificationPreview> {
    return this.request(
      {
        method: "POST",
        path: `/forms/${encodeURIComponent(formId)}/notification-preview`,
        body,
        // It changes nothing: safe to send again.
        idempotent: true,
      },
      options,
    );
  }

  /** Whether the form's owner notification comes to the session's member (and their role's default); a session only. */
  myNotification(formId: string, options?: CallOptions): Promise<MemberNotification> {
    return this.request(
      { method: "GET", path: `/forms/${encodeURIComponent(formId)}/notifications/me`, idempotent: true },
      options,
    );
  }

  /** Chooses whether the form's owner notification comes to the session's member; a session only. */
  setMyNotification(formId: string, notify: boolean, options?: CallOptions): Promise<MemberNotification> {
    return this.request(
      {
        method: "PUT",
        path: `/forms/${encodeURIComponent(formId)}/notifications/me`,
        body: { notify } satisfies MemberNotificationRequest,
        // The same choice again changes nothing more.
        idempotent: true,
      },
      options,
    );
  }

  /** Deletes one submission of a form, with what it left behind; counts and analytics drop it. */
  deleteSubmission(formId: string, submissionId: string, options?: CallOptions): Promise<Deleted> {
    return this.request(
      { method: "DELETE", path: this.submissionPath(formId, submissionId), idempotent: false },
      options,
    );
  }

  /** Moves a submission to the spam folder: it counts nowhere from now on. */
  markSpam(formId: string, submissionId: string, options?: CallOptions): Promise<MovedSubmission> {
    return this.request(
      { method: "POST", path: `${this.submissionPath(formId, submissionId)}/spam`, idempotent: false },
      options,
    );
  }

  /** Moves a submission out of the spam folder: it counts, and its notifications go out, as for a new one. */
  markNotSpam(formId: string, submissionId: string, options?: CallOptions): Promise<MovedSubmission> {
    return this.request(
      { method: "POST", path: `${this.submissionPath(formId, submissionId)}/not-spam`, idempotent: false },
      options,
    );
  }

  /** Changes a submission's state, assignee (a member's email, or null) or tags; answers it as it is now. */
  updateSubmission(
    formId: string,
    submissionId: string,
    body: SubmissionUpdate,
    options?: CallOptions,
  ): Promise<SubmissionDetail> {
    return this.request(
      // The same change again changes nothing more.
      { method: "PATCH", path: this.submissionPath(formId, submissionId), body, idempotent: true },
      options,
    );
  }

  /** One action on 1 to 1,000 submissions of a form (set, delete, spam, not-spam), all or none. */
  bulkSubmissions(formId: string, body: BulkRequest, options?: CallOptions): Promise<BulkResult> {
    return this.request(
      { method: "POST", path: `/forms/${encodeURIComponent(formId)}/submissions/bulk`, body, idempotent: false },
      options,
    );
  }

  /** Adds a note to a submission, written by the caller. */
  addNote(formId: string, submissionId: string, text: string, options?: CallOptions): Promise<Note> {
    return this.request(
      {
        method: "POST",
        path: `${this.submissionPath(formId, submissionId)}/notes`,
        body: { text },
        idempotent: false,
      },
      options,
    );
  }

  /** A submission's notes, oldest first. */
  async listNotes(formId: string, submissionId: string, options?: CallOptions): Promise<Note[]> {
    const { notes } = await this.request<{ notes: Note[] }>(
      { method: "GET", path: `${this.submissionPath(formId, submissionId)}/notes`, idempotent: true },
      options,
    );
    return notes;
  }

  /** What a submission held before each change its submitter made (editableDays), newest first. */
  async listRevisions(formId: string, submissionId: string, options?: CallOptions): Promise<Revision[]> {
    const { revisions } = await this.request<{ revisions: Revision[] }>(
      { method: "GET", path: `${this.submissionPath(formId, submissionId)}/revisions`, idempotent: true },
      options,
    );
    return revisions;
  }

  /** Deletes a note of the caller's own (anyone else's: 403 NOT_AUTHOR). */
  deleteNote(formId: string, submissionId: string, noteId: string, options?: CallOptions): Promise<Deleted> {
    return this.request(
      {
        method: "DELETE",
        path: `${this.submissionPath(formId, submissionId)}/notes/${encodeURIComponent(noteId)}`,
        idempotent: false,
      },
      options,
    );
  }

  /** What a team's learning spam filter has learned from (every mark teaches it), and whether it files spam yet. */
  spamFilter(query: { teamId?: string } = {}, options?: CallOptions): Promise<SpamFilterStatus> {
    return this.request({ method: "GET", path: "/spam-filter", query: { ...query }, idempotent: true }, options);
  }

  /**
   * Every inbox submission of a form, oldest first, as CSV (default) or a JSON array: text chunks
   * as the server streams them, so a form of any size never sits in memory whole. Errors (404,
   * 403…) are thrown by the first step of the iteration; `signal` stops the download too.
   */
  async *exportSubmissions(
    formId: string,
    query: { format?: ExportFormat } = {},
    options: CallOptions = {},
  ): AsyncGenerator<string> {
    const res = await this.send(
      {
        method: "GET",
        path: `/forms/${encodeURIComponent(formId)}/submissions/export`,
        query: { ...query },
        idempotent: true,
      },
      options,
    );
    const reader = res.body!.getReader();
    const stop = () => void reader.cancel(options.signal?.reason).catch(() => {});
    options.signal?.addEventListener("abort", stop, { once: true });
    const decoder = new TextDecoder();
    let done = false;
    try {
      for (;;) {
        const next = await reader.read().catch((e) => {
          if (options.signal?.aborted) throw options.signal.reason;
          throw new FormsvcError({
            status: 0,
            code: "NETWORK_ERROR",
            message: `the export stopped before its end: ${e instanceof Error ? e.message : String(e)}`,
          });
        });
        // A cancelled read ends like a finished one: an aborted export must not pass for a whole one.
        options.signal?.throwIfAborted();
        if (next.done) break;
        const text = decoder.decode(next.value, { stream: true });
        if (text) yield text;
      }
      done = true;
      const rest = decoder.decode();
      if (rest) yield rest;
    } finally {
      options.signal?.removeEventListener("abort", stop);
      if (!done) stop();
    }
  }

  private teamPath(teamId: string): string {
    return `/teams/${encodeURIComponent(teamId)}`;
  }

  private memberPath(teamId: string, ownerId: string): string {
    return `${this.teamPath(teamId)}/members/${encodeURIComponent(ownerId)}`;
  }

  private submissionPath(formId: string, submissionId: string): string {
    return `/forms/${encodeURIComponent(formId)}/submissions/${encodeURIComponent(submissionId)}`;
  }

  private async *walk<T>(
    page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
  ): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const p = await page(cursor);
      yield* p.items;
      cursor = p.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  private url(call: Call): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${call.path}${qs ? `?${qs}` : ""}`;
  }

  private async request<T>(call: Call, options: CallOptions = {}): Promise<T> {
    return (await (await this.send(call, options)).json()) as T;
  }

  /** The first successful answer to `call`, its body unread: 429s waited out, retries as `call` allows; anything else a FormsvcError. */
  private async send(call: Call, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      accept: "application/json",
      ...(this.apiKey === undefined ? {} : { "x-api-key": this.apiKey }),
      ...call.headers,
    };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);

    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.maxRetries;
      let res: Response;
      try {
        res = await this.attempt(this.url(call), { method: call.method, headers, body }, options);
      } catch (e) {
        if (options.signal?.aborted) throw e;
        const timedOut = e instanceof FormsvcError;
        if (call.idempotent && retriesLeft) {
          await sleep(jittered(attempt), options.signal);
          continue;
        }
        if (timedOut) throw e;
        throw new FormsvcError({
          status: 0,
          code: "NETWORK_ERROR",
          message: `could not reach formsvc: ${e instanceof Error ? e.message : String(e)}`,
        });
      }

      this.rememberRateLimit(res.headers);
      if (res.ok) return res;

      const error = await this.toError(res);
      // A 429 was refused before anything happened, so any request may wait it out and try again;
      // not a daily limit, which is the caller's to wait out (its Retry-After is hours).
      if (res.status === 429 && error.code !== "TOO_MANY_CONFIRMATIONS" && retriesLeft) {
        await sleep(this.waitForReset(error), options.signal);
        continue;
      }
      if (res.status >= 500 && call.idempotent && retriesLeft) {
        await sleep(jittered(attempt), options.signal);
        continue;
      }
      throw error;
    }
  }

  /** One fetch, aborted by the caller's signal or this attempt's timeout. */
  private async attempt(url: string, init: RequestInit, options: CallOptions): Promise<Response> {
    const controller = new AbortController();
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(options.signal!.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.fetchImpl(url, { ...init, signal: controller.signal });
    } catch (e) {
      if (timedOut)
        throw new FormsvcError({
          status: 0,
          code: "TIMEOUT",
          message: `formsvc did not answer within ${timeoutMs} ms`,
        });
      throw e;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  private rememberRateLimit(headers: Headers): void {
    const limit = numberHeader(headers, "x-ratelimit-limit");
    const remaining = numberHeader(headers, "x-ratelimit-remaining");
    const reset = numberHeader(headers, "x-ratelimit-reset");
    if (limit !== undefined && remaining !== undefined && reset !== undefined)
      this.rateLimit = { limit, remaining, reset };
  }

  /** Until X-RateLimit-Reset (or Retry-After), at least a moment. */
  private waitForReset(error: FormsvcError): number {
    const untilReset = this.rateLimit ? this.rateLimit.reset * 1000 - Date.now() : 0;
    return Math.max(100, untilReset, (error.retryAfter ?? 0) * 1000);
  }

  private async toError(res: Response): Promise<FormsvcError> {
    let body: { error?: unknown; code?: unknown; requestId?: unknown; challenge?: unknown } = {};
    try {
      body = (await res.json()) as typeof body;
    } catch {}
    return new FormsvcError({
      status: res.status,
      message: typeof body.error === "string" ? body.error : `HTTP ${res.status}`,
      code: typeof body.code === "string" ? body.code : undefined,
      requestId: typeof body.requestId === "string" ? body.requestId : (res.headers.get("x-request-id") ?? undefined),
      retryAfter: numberHeader(res.headers, "retry-after"),
      challenge: typeof body.challenge === "string" ? body.challenge : undefined,
    });
  }
}

// Compile-time proof that the client's published types and the server's schemas agree:
// `npm run typecheck` (run by CI) fails as soon as either side changes alone.
import type { Static } from "@sinclair/typebox";
import type * as Client from "../../src/client/types";
import type {
  AccountJson,
  AccountPatchSchema,
  LoginBody,
  RecoveryCodesJson,
  ResetAcceptedJson,
  ResetBody,
  ResetConfirmBody,
  SecondFactorBody,
  SessionJson,
  SetupBody,
  TotpCodeBody,
  TotpConfirmBody,
  TotpEnrolmentJson,
} from "../../src/modules/accounts/model";
import type { PasskeyJson, PasskeyRenameBody } from "../../src/modules/accounts/passkeys-routes";
import type { AnalyticsJson } from "../../src/modules/analytics/model";
import type { Highlight } from "../../src/modules/search/document";
import type { SearchResultJson } from "../../src/modules/search/routes";
import type { AuditEvent } from "../../src/modules/audit/model";
import type { MemberRoleBody, MoveFormBody, Team, TeamMember, TeamNameBody } from "../../src/modules/teams/model";
import type {
  MemberNotificationBody,
  MemberNotificationSchema,
  NotificationPreviewBody,
  NotificationPreviewSchema,
} from "../../src/modules/notifications/routes";
import type {
  CreatedInvitationJson,
  InvitationAcceptBody,
  InvitationAcceptedJson,
  InvitationCreateBody,
  InvitationJson,
} from "../../src/modules/teams/invitation-model";
import type { FilterStatusJson } from "../../src/modules/spam/model";
import type { CreatedWebhookJson, DeliveryJson, WebhookJson } from "../../src/modules/webhooks/model";
import type { DeletedJson, FormListJson, UsersJoinedJson } from "../../src/modules/forms/model";
import type { FormCreateBody, FormJson, FormPatchBody } from "../../src/modules/forms/settings";
import type { ApiKeyJson, CreatedKey, KeyCreateBody, RevokedKeyJson } from "../../src/modules/keys/model";
import type {
  MovedJson,
  SubmissionDetailJson,
  SubmissionJson,
  SubmissionListJson,
  SubmitBody,
  SubmitResult,
} from "../../src/modules/submissions/model";
import type { ListedSubmissionJson } from "../../src/modules/submissions/model";
import type { PartialListJson } from "../../src/modules/dropin/partials-model";
import type { RevisionListJson } from "../../src/modules/submissions/revisions-routes";
import type {
  BulkBody,
  BulkResultJson,
  NoteBody,
  NoteJson,
  NoteListJson,
  TriageBody,
} from "../../src/modules/submissions/triage-model";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

export type Checks = [
  Assert<Equal<Client.SecondFactorRequest, SecondFactorBody>>,
  Assert<Equal<Client.TotpEnrolment, TotpEnrolmentJson>>,
  Assert<Equal<Client.TotpConfirmRequest, TotpConfirmBody>>,
  Assert<Equal<Client.TotpCodeRequest, TotpCodeBody>>,
  Assert<Equal<Client.RecoveryCodes, RecoveryCodesJson>>,
  Assert<Equal<Client.Passkey, PasskeyJson>>,
  Assert<Equal<Client.PasskeyRenameRequest, PasskeyRenameBody>>,
  Assert<Equal<Client.Form, FormJson>>,
  Assert<Equal<Client.FormList, FormListJson>>,
  Assert<Equal<Client.Submission, SubmissionJson>>,
  Assert<Equal<Client.SubmissionList, SubmissionListJson>>,
  Assert<Equal<Client.PartialList, PartialListJson>>,
  Assert<Equal<Client.SearchResults, SearchResultJson>>,
  Assert<Equal<Client.SearchHighlight, Highlight>>,
  Assert<Equal<Client.ListedSubmission, ListedSubmissionJson>>,
  Assert<Equal<Client.SubmissionUpdate, TriageBody>>,
  Assert<Equal<Client.BulkRequest, BulkBody>>,
  Assert<Equal<Client.BulkResult, BulkResultJson>>,
  Assert<Equal<Client.Note, NoteJson>>,
  Assert<Equal<{ notes: Client.Note[] }, NoteListJson>>,
  Assert<Equal<{ revisions: Client.Revision[] }, RevisionListJson>>,
  Assert<Equal<{ text: string }, NoteBody>>,
  Assert<Equal<Client.SubmitResult, SubmitResult>>,
  Assert<Equal<Client.SubmitRequest, SubmitBody>>,
  Assert<Equal<{ usersJoined: number }, UsersJoinedJson>>,
  Assert<Equal<Client.Analytics, AnalyticsJson>>,
  Assert<Equal<Client.Webhook, WebhookJson>>,
  Assert<Equal<Client.CreatedWebhook, CreatedWebhookJson>>,
  Assert<Equal<Client.Delivery, DeliveryJson>>,
  Assert<Equal<Client.FormCreateRequest, FormCreateBody>>,
  Assert<Equal<Client.FormUpdateRequest, FormPatchBody>>,
  Assert<Equal<Client.Deleted, DeletedJson>>,
  Assert<Equal<Client.ApiKey, ApiKeyJson>>,
  Assert<Equal<Client.KeyCreateRequest, KeyCreateBody>>,
  Assert<Equal<Client.CreatedKey, CreatedKey>>,
  Assert<Equal<Client.RevokedKey, RevokedKeyJson>>,
  Assert<Equal<Client.MovedSubmission, MovedJson>>,
  Assert<Equal<Client.SubmissionDetail, SubmissionDetailJson>>,
  Assert<Equal<Client.NotificationPreview, Static<typeof NotificationPreviewSchema>>>,
  Assert<Equal<Client.NotificationPreviewRequest, Static<typeof NotificationPreviewBody>>>,
  Assert<Equal<Client.MemberNotification, Static<typeof MemberNotificationSchema>>>,
  Assert<Equal<Client.MemberNotificationRequest, Static<typeof MemberNotificationBody>>>,
  Assert<Equal<Client.SpamFilterStatus, FilterStatusJson>>,
  Assert<Equal<Client.Account, AccountJson>>,
  Assert<Equal<Client.Session, SessionJson>>,
  Assert<Equal<Client.AccountUpdateRequest, Static<typeof AccountPatchSchema>>>,
  Assert<Equal<Client.LoginRequest, LoginBody>>,
  Assert<Equal<Client.SetupRequest, SetupBody>>,
  Assert<Equal<Client.ResetRequest, ResetBody>>,
  Assert<Equal<Client.ResetAccepted, ResetAcceptedJson>>,
  Assert<Equal<Client.ResetConfirmRequest, ResetConfirmBody>>,
  Assert<Equal<Client.Team, Team>>,
  Assert<Equal<Client.TeamRequest, TeamNameBody>>,
  Assert<Equal<Client.TeamMember, TeamMember>>,
  Assert<Equal<{ role: Client.Role }, MemberRoleBody>>,
  Assert<Equal<{ teamId: string }, MoveFormBody>>,
  Assert<Equal<Client.AuditEvent, AuditEvent>>,
  Assert<Equal<Client.Invitation, InvitationJson>>,
  Assert<Equal<Client.CreatedInvitation, CreatedInvitationJson>>,
  Assert<Equal<Client.InvitationCreateRequest, InvitationCreateBody>>,
  Assert<Equal<Client.InvitationAcceptRequest, InvitationAcceptBody>>,
  Assert<Equal<Client.InvitationAccepted, InvitationAcceptedJson>>,
];

// A response that breaks the contract does not type-check.
export const brokenForm: Client.Form = {
  id: "f",
  name: "n",
  description: "",
  formType: "contact",
  submissionCount: 0,
  createdAt: "",
  updatedAt: "",
  emailSettings: { enabled: false, developerNotificationsEnabled: false, attachPdf: false, attachFilesUpTo: 0 },
  // @ts-expect-error usersJoinedSettings must be an object or null, never a number
  usersJoinedSettings: 3,
  allowedOrigins: [],
  spamSettings: {
    honeypotField: null,
    challenge: "none",
    blockedWords: [],
    blockedEmailDomains: [],
    blockDisposableEmail: false,
    maxLinks: null,
    duplicateWindowSeconds: null,
    threshold: 0.9,
    recaptchaMinScore: 0.5,
  },
  autoresponse: { enabled: false, subject: "", text: "" },
  doubleOptIn: false,
  confirmRedirectUrl: null,
  retentionDays: null,
};

// Both sides type a PATCH that lists recipients as plain addresses, as Get Form shows them, or mixed: the server takes each.
export const recipientsAsGiven: FormPatchBody & Client.FormUpdateRequest = {
  recipients: ["team@example.com", { email: "ops@example.com" }, { email: "desk@example.com", confirmed: true }],
};

// What the dashboard asks of the API, in one place, only through formsvc's typed client: a call
// the server does not take, or an answer the page reads wrongly, fails the type check.
import type {
  Account,
  Analytics,
  AnalyticsQuery,
  CreatedWebhook,
  Delivery,
  Form,
  FormListItem,
  FormType,
  FormUpdateRequest,
  SpamFilterStatus,
  Submission,
  SubmissionDetail,
  Webhook,
  WebhookFormat,
} from "../../client/index";
import { client } from "./api";

export type FormDetails = Form;

export type { Account, ApiKey, CreatedKey, CreatedWebhook, Delivery, Webhook } from "../../client/index";

const enc = encodeURIComponent;

export const auth = {
  login: (email: string, password: string): Promise<Account> => client.login({ email, password }),
  logout: () => client.logout(),
  me: (): Promise<Account> => client.me(),
  update: (change: { timeZone?: string }): Promise<Account> => client.updateMe(change),
  setup: (token: string, email: string, password: string): Promise<Account> => client.setup({ token, email, password }),
  requestReset: (email: string) => client.requestPasswordReset({ email }),
  confirmReset: (token: string, password: string) => client.confirmPasswordReset({ token, password }),
};

export const forms = {
  list: (cursor?: string) => client.listForms({ limit: 50, cursor }),
  get: (id: string) => client.getForm(id),
  // The API leaves email off for a form it creates (scripts ask for what they want); a person creating
  // one in the dashboard expects to hear of its submissions.
  create: (body: { name: string; formType: FormType; description?: string }) =>
    client.createForm({ ...body, emailSettings: { enabled: true, developerNotificationsEnabled: true } }),
  update: (id: string, body: FormUpdateRequest) => client.updateForm(id, body),
  remove: (id: string) => client.deleteForm(id),
  analytics: (id: string, query: AnalyticsQuery): Promise<Analytics> => client.getAnalytics(id, query),
};

export const submissions = {
  list: (formId: string, status: "inbox" | "spam", cursor?: string, limit = 25) =>
    client.listSubmissions(formId, { status, cursor, limit }),
  get: (formId: string, id: string) => client.getSubmission(formId, id),
  remove: (formId: string, id: string) => client.deleteSubmission(formId, id),
  move: (formId: string, id: string, to: "spam" | "not-spam") =>
    to === "spam" ? client.markSpam(formId, id) : client.markNotSpam(formId, id),
  exportUrl: (formId: string, format: "csv" | "json") =>
    `/api/v1/forms/${enc(formId)}/submissions/export?format=${format}`,
  /** What the owner's spam filter has learned from the marks. */
  spamFilter: (): Promise<SpamFilterStatus> => client.spamFilter(),
};

export const notifications = {
  /** The owner notification as it would be sent; `template` not yet saved (null: formsvc's own email). */
  preview: (formId: string, template: { subject: string; text: string } | null) =>
    client.previewNotification(formId, { template }),
};

export const keys = {
  list: () => client.listKeys(),
  create: (body: { name: string; kind: "secret" | "publishable"; forms: string[] | null }) =>
    client.createKey({
      name: body.name,
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

export type { Analytics, Form, FormListItem, SpamFilterStatus, Submission, SubmissionDetail };

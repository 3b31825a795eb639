// What the dashboard asks of the API, in one place, through formsvc's typed client; the calls of
// endpoints the client does not have (webhooks, accounts) go through `send`, which answers and
// fails the same way (a FormsvcError with the server's message).
import type { Analytics, AnalyticsQuery, Form, FormListItem, FormType, FormUpdateRequest, Submission } from "../../client/index";
import { client, FormsvcError, sessionFetch } from "./api";
import type { Me } from "./session";

/** Settings newer than the client's Form type; each is present when the server has it. */
export type FormDetails = Form;

export type { ApiKey, CreatedKey } from "../../client/index";

export interface Webhook {
  id: string;
  formId: string;
  url: string;
  format: "standard" | "slack" | "discord";
  enabled: boolean;
  /** Why it was switched off (the receiver answered 410 Gone), when it was. */
  disabledReason?: string | null;
  createdAt: string;
  /** whsec_…, in the answer that created it only (null for Slack and Discord). */
  secret?: string | null;
}

export interface Delivery {
  id: string;
  status: "pending" | "succeeded" | "failed";
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
}

async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await sessionFetch(`${location.origin}/api/v1${path}`, {
      method,
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new FormsvcError({ status: 0, code: "NETWORK_ERROR", message: `could not reach formsvc: ${e instanceof Error ? e.message : String(e)}` });
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  if (!res.ok) {
    throw new FormsvcError({ status: res.status, message: typeof json?.error === "string" ? json.error : `HTTP ${res.status}`, code: json?.code, requestId: json?.requestId ?? res.headers.get("x-request-id") ?? undefined });
  }
  return json as T;
}

const enc = encodeURIComponent;

export const auth = {
  login: (email: string, password: string) => send<Me>("POST", "/auth/login", { email, password }),
  logout: () => send<void>("POST", "/auth/logout"),
  me: () => send<Me>("GET", "/auth/me"),
};

export const forms = {
  list: (cursor?: string) => client.listForms({ limit: 50, cursor }),
  get: (id: string) => client.getForm(id) as Promise<FormDetails>,
  create: (body: { name: string; formType: FormType; description?: string }) => client.createForm(body) as Promise<FormDetails>,
  update: (id: string, body: FormUpdateRequest & Record<string, unknown>) => client.updateForm(id, body) as Promise<FormDetails>,
  remove: (id: string) => client.deleteForm(id),
  analytics: (id: string, query: AnalyticsQuery): Promise<Analytics> => client.getAnalytics(id, query),
};

export const submissions = {
  list: (formId: string, status: "inbox" | "spam", cursor?: string, limit = 25) => client.listSubmissions(formId, { status, cursor, limit }),
  remove: (formId: string, id: string) => client.deleteSubmission(formId, id),
  move: (formId: string, id: string, to: "spam" | "not-spam") => (to === "spam" ? client.markSpam(formId, id) : client.markNotSpam(formId, id)),
  exportUrl: (formId: string, format: "csv" | "json") => `/api/v1/forms/${enc(formId)}/submissions/export?format=${format}`,
};

export const keys = {
  list: () => client.listKeys(),
  create: (body: { name: string; kind: "secret" | "publishable"; forms: string[] | null }) =>
    client.createKey({ name: body.name, ...(body.kind === "publishable" ? { publishable: true } : {}), ...(body.forms ? { forms: body.forms } : {}) }),
  revoke: (id: string) => client.revokeKey(id),
};

export const webhooks = {
  list: async (formId: string) => {
    const body = await send<Webhook[] | { webhooks: Webhook[] }>("GET", `/forms/${enc(formId)}/webhooks`);
    return Array.isArray(body) ? body : body.webhooks;
  },
  add: (formId: string, body: { url: string; format: string }) => send<Webhook>("POST", `/forms/${enc(formId)}/webhooks`, body),
  remove: (id: string) => send<void>("DELETE", `/webhooks/${enc(id)}`),
  deliveries: async (id: string) => {
    const body = await send<Delivery[] | { deliveries: Delivery[] }>("GET", `/webhooks/${enc(id)}/deliveries`);
    return Array.isArray(body) ? body : body.deliveries;
  },
  replay: (deliveryId: string) => send<unknown>("POST", `/deliveries/${enc(deliveryId)}/replay`),
};

export type { Analytics, Form, FormListItem, Submission };

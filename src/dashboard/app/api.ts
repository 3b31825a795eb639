import { FormsvcClient, FormsvcError } from "../../client/index";

/** What the session's 401 does: set by session.ts (back to the login page, keeping the route). */
let onUnauthorized: () => void = () => {};
export const whenUnauthorized = (f: () => void) => void (onUnauthorized = f);

// Answers to these say "not logged in" or "wrong password", not "the session ran out".
const AUTH_PATHS = /\/api\/v1\/auth\/(login|login\/second-factor|passkeys\/login|me)$/;

/** fetch for the client: the session cookie goes along (same origin), and a 401 anywhere else means the session ended. */
export async function sessionFetch(url: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url, { ...init, credentials: "same-origin" });
  if (res.status === 401 && !AUTH_PATHS.test(new URL(url, location.href).pathname)) onUnauthorized();
  if (res.status === 403) {
    const body = (await res
      .clone()
      .json()
      .catch(() => null)) as { code?: string } | null;
    if (body?.code === "SECOND_FACTOR_ENROLMENT_REQUIRED") onEnrolmentRequired();
  }
  return res;
}

/** What a session held to enrolment (FORMSVC_REQUIRE_2FA) does: set by session.ts (to the account page, where it enrols). */
let onEnrolmentRequired: () => void = () => {};
export const whenEnrolmentRequired = (f: () => void) => void (onEnrolmentRequired = f);

/** formsvc's typed client, without an API key: the browser's session cookie stands for the owner's secret key. */
export const client = new FormsvcClient({ baseUrl: `${location.origin}/api/v1`, fetch: sessionFetch });

/** A sentence for any failure, for the page to show: the server's own message where it sent one. */
export function describeError(e: unknown): string {
  if (e instanceof FormsvcError) {
    if (e.status === 0) return `formsvc did not answer (${e.message}). Check that it is running, then try again.`;
    if (e.status === 429 && e.code !== "TOO_MANY_CONFIRMATIONS") return `Too many requests for now: ${e.message}`;
    return e.message.charAt(0).toUpperCase() + e.message.slice(1) + (/[.!?]$/.test(e.message) ? "" : ".");
  }
  return e instanceof Error ? e.message : String(e);
}

export { FormsvcError };

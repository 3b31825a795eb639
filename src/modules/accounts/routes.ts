import { Elysia } from "elysia";
import { jsonBody, noBody, requestContext } from "../../http/context";
import { responses } from "../../http/docs";
import { requireSameOrigin } from "../../http/same-origin";
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie } from "../../http/session-cookie";
import { addressBucket } from "../../lib/address-bucket";
import { AccountSchema, LoginBodySchema } from "./model";
import type { AccountsService } from "./service";

const setCookie = (description: string) => ({
  "Set-Cookie": { description, required: true, schema: { type: "string" } },
});

/** Login, logout and the session's owner. `secureCookie`: the server is reached over https (FORMSVC_PUBLIC_URL). */
export function accountsRoutes(accounts: AccountsService, opts: { secureCookie: boolean }) {
  return new Elysia({ name: "accounts-routes" })
    .use(requestContext)
    .post(
      "/auth/login",
      async ({ body, client, caller, viaSession, set }) => {
        const { account, token } = await accounts.login(body, addressBucket(client().ip));
        // One browser, one session: the one it came with (if any) ends here.
        if (viaSession) await accounts.endSession(caller!.keyId);
        set.headers["set-cookie"] = sessionCookie(token, accounts.sessionMaxAgeSeconds, opts.secureCookie);
        return account;
      },
      {
        // Before the body is read: another site's page must not log a visitor in to an account of its choosing.
        parse: jsonBody(({ request, ownOrigin }: { request: Request; ownOrigin: () => string | null }) =>
          requireSameOrigin(request, ownOrigin()),
        ),
        body: LoginBodySchema,
        detail: {
          summary: "Log in",
          description: `Takes no API key. Checks an owner's email and password (set with \`formsvc owners set-password\`) and opens a session: the ${SESSION_COOKIE} cookie (HttpOnly, SameSite=Lax, Path=/; when FORMSVC_PUBLIC_URL is https, Secure and named __Host-${SESSION_COOKIE}), which then acts as the owner's secret key on every endpoint but submit and challenge. The request must carry an Origin header equal to the server's own (FORMSVC_PUBLIC_URL's origin, else the request's Host), else 403 CSRF. A wrong email and a wrong password get the same 401. Five failed logins for one email within 15 minutes, or twenty from one client address, are answered 429 (with Retry-After) until the oldest leaves the window. The session ends after FORMSVC_SESSION_IDLE_DAYS without a request or FORMSVC_SESSION_MAX_DAYS after the login.`,
          tags: ["Accounts"],
          security: [],
          responses: responses(
            {
              schema: AccountSchema,
              description: "logged in: the owner, and the session cookie",
              headers: setCookie(
                `[__Host-]${SESSION_COOKIE}=<token>; Max-Age=…; Path=/; HttpOnly; SameSite=Lax[; Secure]`,
              ),
            },
            400,
            401,
            403,
            429,
          ),
        },
      },
    )
    .post(
      "/auth/logout",
      async ({ principal, set }) => {
        await accounts.endSession(principal.keyId);
        set.headers["set-cookie"] = clearedSessionCookie(opts.secureCookie);
        set.status = 204;
      },
      {
        auth: "session",
        detail: {
          summary: "Log out",
          description:
            "Ends the session the request carries (later requests with it are a 401) and clears the cookie. Like every request that changes something with a session, it must carry the server's own Origin (else 403 CSRF).",
          tags: ["Accounts"],
          responses: responses(
            {
              status: 204,
              description: "the session has ended; the cookie is cleared",
              headers: setCookie(`[__Host-]${SESSION_COOKIE}=; Max-Age=0; …`),
            },
            401,
            403,
            429,
          ),
        },
      },
    )
    .get("/auth/me", async ({ principal }) => await accounts.account(principal), {
      auth: noBody("session"),
      detail: {
        summary: "The session's owner",
        description: "The owner the session cookie logs in as; 401 without a live session (an API key is no session).",
        tags: ["Accounts"],
        responses: responses({ schema: AccountSchema, description: "the owner" }, 401, 429),
      },
    });
}

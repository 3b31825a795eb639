import { Elysia, t, type Context } from "elysia";
import { PAGE_CSP } from "../../http/assets";
import { readCapped } from "../../http/body";
import { jsonBody, noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { requireSameOrigin } from "../../http/same-origin";
import { SESSION_COOKIE, sessionCookie, sessionOrigin } from "../../http/session-cookie";
import { addressBucket } from "../../lib/address-bucket";
import { AppError } from "../../lib/errors";
import type { Principal } from "../../lib/principal";
import {
  CreatedInvitationSchema,
  InvitationAcceptedSchema,
  InvitationAcceptSchema,
  InvitationCreateSchema,
  InvitationListSchema,
  InvitationParams,
  TeamParams,
} from "./invitation-model";
import { acceptedPage, invitationPage, refusedPage } from "./invitation-page";
import type { InvitationsService } from "./invitations";

interface Options {
  /** The server is reached over https (FORMSVC_PUBLIC_URL): the session cookie is Secure. */
  secureCookie: boolean;
  sessionMaxAgeSeconds: number;
  smtpConfigured: boolean;
}

const ACCEPTING =
  "A person with an account accepts with a session of theirs or their password (checked as a login is: five wrong ones within 15 minutes are a 429; a person with a second factor needs their session: a password alone is a 401 SECOND_FACTOR_REQUIRED); anyone else sets a password (12 to 1024 characters), which makes their account and its personal team. Either way the person becomes a member with the invited role, the link is used up, `member.joined` is recorded, and, unless the request came with their session, a session is opened (the Set-Cookie of Log in). A wrong, used, replaced or expired link is a 400 and changes nothing; an address that became a member meanwhile, 409 ALREADY_MEMBER.";

/** The team API's invitations: invite, list, cancel (with a key or session), and accept (with a link's token). */
export function invitationRoutes(invitations: InvitationsService, opts: Options) {
  return new Elysia({ name: "invitation-routes" })
    .use(requestContext)
    .post(
      "/teams/:teamId/invitations",
      async ({ params, body, principal }) => ({
        ...(await invitations.invite(principal, params.teamId, body)).invitation,
        smtpConfigured: opts.smtpConfigured,
      }),
      {
        auth: secret("members.manage"),
        params: TeamParams,
        body: InvitationCreateSchema,
        detail: {
          summary: "Invite a member",
          description:
            "Sends one email to `email` (through the outbox: it waits for FORMSVC_SMTP_URL and FORMSVC_PUBLIC_URL, which its link starts with) with a link, `FORMSVC_PUBLIC_URL/invitations/<token>`, that works once, for 7 days; formsvc keeps only its SHA-256. An admin may invite up to admin, only an owner may invite an owner (else 403 ROLE_TOO_LOW); an address that is a member already is a 409 ALREADY_MEMBER. A second invitation of an address still pending replaces the first, whose link stops working. Needs a secret key of all the team's forms (or a session).",
          tags: ["Teams"],
          responses: responses(
            { schema: CreatedInvitationSchema, description: "invited: the email is queued" },
            400,
            401,
            403,
            404,
            409,
            429,
          ),
        },
      },
    )
    .get(
      "/teams/:teamId/invitations",
      async ({ params, principal }) => await invitations.list(principal, params.teamId),
      {
        auth: noBody(secret("members.read")),
        params: TeamParams,
        detail: {
          summary: "List pending invitations",
          description:
            "The team's invitations not yet accepted nor expired, oldest first; never a link. Any member may read them.",
          tags: ["Teams"],
          responses: responses(
            { schema: InvitationListSchema, description: "pending invitations" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    )
    .delete(
      "/teams/:teamId/invitations/:invitationId",
      async ({ params, principal, set }) => {
        await invitations.cancel(principal, params.teamId, params.invitationId);
        set.status = 204;
      },
      {
        auth: secret("members.manage"),
        params: InvitationParams,
        detail: {
          summary: "Cancel an invitation",
          description:
            "Withdraws a pending invitation: its link stops working. One accepted, expired or unknown is a 404.",
          tags: ["Teams"],
          responses: responses({ status: 204, description: "cancelled" }, 400, 401, 403, 404, 429),
        },
      },
    )
    .post(
      "/invitations/accept",
      async ({ body, caller, viaSession, client, request, set }) => {
        const { accepted, sessionToken } = await invitations.accept(
          body,
          viaSession ? caller : null,
          addressBucket(client().ip),
          sessionOrigin(request, client),
        );
        if (sessionToken)
          set.headers["set-cookie"] = sessionCookie(sessionToken, opts.sessionMaxAgeSeconds, opts.secureCookie);
        return accepted;
      },
      {
        // Before the body is read: another site's page must not make a visitor's browser join a team, or log in, at its choosing.
        ...jsonBody(({ request, ownOrigin }) => requireSameOrigin(request, ownOrigin()), InvitationAcceptSchema),
        detail: {
          summary: "Accept an invitation",
          description: `Takes no API key: the emailed link's token instead (the link's page, \`/invitations/<token>\`, does the same with a form). ${ACCEPTING} Must carry the server's own Origin, else 403 CSRF.`,
          tags: ["Teams"],
          security: [],
          responses: responses(
            {
              schema: InvitationAcceptedSchema,
              description: "a member now",
              headers: {
                "Set-Cookie": {
                  description: `a new session (\`[__Host-]${SESSION_COOKIE}=<token>; …\`), unless the request came with the invited person's`,
                  schema: { type: "string" },
                },
              },
            },
            400,
            401,
            403,
            409,
            429,
          ),
        },
      },
    );
}

/**
 * An HTML answer of the link's page. The token is in its URL, so it is never sent as a Referer to
 * another site; to its own (`same-origin`, not `no-referrer`) the browser must still say where the
 * form comes from: with no referrer at all, Chrome sends `Origin: null` and the CSRF check refuses it.
 */
function html(set: Context["set"], status: number, page: string): string {
  set.status = status;
  set.headers["content-type"] = "text/html; charset=utf-8";
  set.headers["content-security-policy"] = PAGE_CSP;
  set.headers["referrer-policy"] = "same-origin";
  return page;
}

/**
 * The link of an invitation email, outside /api/v1 (it is for people): GET (and HEAD, which Bun
 * answers with it) shows the invitation and a form, and changes nothing, since mail scanners open
 * every link; only the form's POST accepts, with a session of the invited person, their password, or
 * a new password for a person without an account.
 */
export function invitationPageRoutes(invitations: InvitationsService, opts: Options) {
  const params = t.Object({ token: t.String() });
  const show = async (token: string, caller: Principal | null, set: Context["set"], error?: AppError) => {
    const opened = await invitations.open(token);
    if (!opened) return html(set, 400, refusedPage());
    return html(set, error?.status ?? 200, invitationPage(opened, caller?.ownerId ?? null, error?.message));
  };
  return new Elysia({ name: "invitation-page-routes" })
    .use(requestContext)
    .get(
      "/invitations/:token",
      async ({ params, caller, viaSession, set }) => await show(params.token, viaSession ? caller : null, set),
      { params, detail: { hide: true } },
    )
    .post(
      "/invitations/:token",
      async ({ params, request, caller, viaSession, client, ownOrigin, maxBodyBytes, bodyPace, set }) => {
        const session = viaSession ? caller : null;
        try {
          // Before the body is read, as login's check: another site's page must not post here with the visitor's browser.
          requireSameOrigin(request, ownOrigin());
          const form = new URLSearchParams(new TextDecoder().decode(await readCapped(request, maxBodyBytes, bodyPace)));
          const password = form.get("password") || undefined;
          const { accepted, sessionToken } = await invitations.accept(
            { token: params.token, password },
            session,
            addressBucket(client().ip),
            sessionOrigin(request, client),
          );
          if (sessionToken)
            set.headers["set-cookie"] = sessionCookie(sessionToken, opts.sessionMaxAgeSeconds, opts.secureCookie);
          return html(set, 200, acceptedPage(accepted));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          // A refusal the person can act on (a wrong password, one too short) shows the form again with it.
          if (e.status >= 500 || e.status === 413 || e.status === 408) throw e;
          Object.assign(set.headers, e.headers ?? {});
          return await show(params.token, session, set, e);
        }
      },
      { params, parse: "none", detail: { hide: true } },
    );
}

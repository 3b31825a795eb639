import { Elysia, t } from "elysia";
import { noBody, requestContext, secret } from "../../http/context";
import { responses } from "../../http/docs";
import { TeamIdParam } from "../../http/schemas";
import {
  CreatedKeySchema,
  KeyCreateSchema,
  KeyIdParams,
  KeyListSchema,
  RevokedKeySchema,
  toKeyJson,
  toRevokedJson,
} from "./model";
import type { KeysService } from "./service";

const SCOPE =
  "Needs a secret key of all the team's forms (or a session), of an admin or owner there: a publishable key, or a key bound to some forms, is refused with 403 KEY_SCOPE, a lower role with 403 ROLE_TOO_LOW.";

export function keysRoutes(keys: KeysService) {
  return new Elysia({ name: "keys-routes" })
    .use(requestContext)
    .get(
      "/keys",
      async ({ principal, query }) => (await keys.listKeys(principal, { teamId: query.teamId })).map(toKeyJson),
      {
        auth: noBody(secret("keys.manage")),
        query: t.Object({ teamId: TeamIdParam }),
        detail: {
          summary: "List API keys",
          description: `A team's keys, oldest first, revoked ones too (active: false); never a secret, as formsvc keys list --json shows them. ${SCOPE}`,
          tags: ["Keys"],
          responses: responses({ schema: KeyListSchema, description: "the owner's keys" }, 400, 401, 403, 429),
        },
      },
    )
    .post("/keys", async ({ body, principal }) => await keys.createKey(principal, body), {
      auth: secret("keys.manage"),
      body: KeyCreateSchema,
      detail: {
        summary: "Create an API key",
        description: `A new key of a team (teamId, default the caller's), with a role (default admin): secret by default, publishable (fpk_…, for web pages) with publishable: true, bound to some of the owner's forms with forms. The secret is in this answer only; formsvc stores its SHA-256. Answered 200, as submit is. ${SCOPE}`,
        tags: ["Keys"],
        responses: responses(
          { schema: CreatedKeySchema, description: "the new key, with its secret (shown this once)" },
          400,
          401,
          403,
          429,
        ),
      },
    })
    .delete(
      "/keys/:keyId",
      async ({ params, principal }) => toRevokedJson(await keys.revokeKey(principal, params.keyId)),
      {
        auth: secret("keys.manage"),
        params: KeyIdParams,
        detail: {
          summary: "Revoke an API key",
          description: `Every later request with the key is a 401, from the next one on. Another owner's key is a 404, as one that does not exist; revoking a revoked key changes nothing. A key may revoke itself: this answer is its last. ${SCOPE}`,
          tags: ["Keys"],
          responses: responses(
            { schema: RevokedKeySchema, description: "the key, now inactive" },
            400,
            401,
            403,
            404,
            429,
          ),
        },
      },
    );
}

import { Elysia } from "elysia";
import type { ClientOrigin } from "../lib/client-ip";
import { AppError } from "../lib/errors";
import type { Principal } from "../lib/principal";
import { corsHeaders } from "./cors";

const unset = (): ClientOrigin => {
  throw new Error("the request context is filled by the front plugin; mount it before the routes");
};

/** Marks a route in the OpenAPI document (and for the front) as open to publishable keys and to other origins. */
export const PUBLIC_ROUTE = "x-publishable-key";

/**
 * What a route may ask of its request, typed on Elysia's context: `requestId`, the `caller`
 * behind the API key (null without a valid one), and `client()` (the client address, computed on
 * first use). The front plugin (front.ts) fills them in `onRequest`, on the context object that
 * Elysia then hands to the route, so these values are only placeholders.
 *
 * Routes declare what key they need: `{ auth: "secret" }` (the API of an owner's forms; a
 * publishable key is refused there with KEY_SCOPE by the services' access check) or
 * `{ auth: "public" }` (submit and challenge: any key, answered with CORS headers to other
 * origins). The key check runs at `transform`, before parameters are validated, so the order is
 * 429 (front) -> 401 (here) -> 400 (schemas) -> 404 -> 403; the route receives the caller as
 * `principal`.
 */
export const requestContext = new Elysia({ name: "request-context" })
  .decorate({ requestId: "", startedAt: 0, caller: null as Principal | null, keyGiven: false, client: unset })
  .macro({
    auth: (need: "secret" | "public") => ({
      ...(need === "public" ? { detail: { [PUBLIC_ROUTE]: true } as Record<string, unknown> } : {}),
      transform({ caller, keyGiven, request, set }) {
        // Before the key check: a page's script must be able to read a 401 too.
        if (need === "public") Object.assign(set.headers, corsHeaders(request));
        if (!caller) throw new AppError("UNAUTHORIZED", keyGiven ? "API key is invalid or has been revoked" : "missing API key: send it in the X-API-Key header");
      },
      resolve: ({ caller }) => ({ principal: caller! }),
    }),
  });

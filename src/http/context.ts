import { Elysia } from "elysia";
import type { ClientOrigin } from "../lib/client-ip";
import { AppError } from "../lib/errors";

/** Who is calling: the key and the owner whose forms it sees. */
export interface Caller {
  keyId: string;
  ownerId: string;
}

const unset = (): ClientOrigin => {
  throw new Error("the request context is filled by the front plugin; mount it before the routes");
};

/**
 * What a route may ask of its request, typed on Elysia's context: `requestId`, the `caller`
 * behind the API key (null without a valid one), and `client()` (the client address, computed on
 * first use). The front plugin (front.ts) fills them in `onRequest`, on the context object that
 * Elysia then hands to the route, so these values are only placeholders.
 *
 * Routes declare `{ auth: "secret" }` to require a key: the check runs at `transform`, before
 * parameters are validated, so the order is 429 (front) -> 401 (here) -> 400 (schemas) -> 404 -> 403;
 * the route then receives the caller as `principal`.
 */
export const requestContext = new Elysia({ name: "request-context" })
  .decorate({ requestId: "", startedAt: 0, caller: null as Caller | null, keyGiven: false, client: unset })
  .macro({
    auth: (_need: "secret") => ({
      transform({ caller, keyGiven }) {
        if (!caller) throw new AppError("UNAUTHORIZED", keyGiven ? "API key is invalid or has been revoked" : "missing API key: send it in the X-API-Key header");
      },
      resolve: ({ caller }) => ({ principal: caller! }),
    }),
  });

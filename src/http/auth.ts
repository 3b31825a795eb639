import { Elysia } from "elysia";
import { AppError } from "../lib/errors";
import type { Principal } from "../modules/keys/service";
import { requestState } from "./request-state";

/**
 * Routes that need an API key. Runs after the route is matched and before parameters are
 * validated, so the check order is 429 (front) -> 401 (here) -> 400 (schemas) -> 404 -> 403.
 */
export const requireKey = new Elysia({ name: "require-key" }).derive({ as: "scoped" }, ({ request }): { principal: Principal } => {
  const state = requestState.get(request);
  if (!state?.principal) {
    throw new AppError("UNAUTHORIZED", state?.keyGiven ? "API key is invalid or has been revoked" : "missing API key: send it in the X-API-Key header");
  }
  return { principal: state.principal };
});

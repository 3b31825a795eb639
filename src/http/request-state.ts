import type { ClientOrigin } from "../lib/client-ip";
import type { Principal } from "../modules/keys/service";

/** What the front of the pipeline learned about a request, for the hooks and routes after it. */
export interface RequestState {
  id: string;
  startedAt: number;
  /** Computed on first use: most requests with a valid key never need it. */
  origin: () => ClientOrigin;
  /** The key's owner, or null: `keyGiven` tells a missing key from a wrong one. */
  principal: Principal | null;
  keyGiven: boolean;
}

const states = new WeakMap<Request, RequestState>();

export const requestState = {
  set: (request: Request, state: RequestState) => void states.set(request, state),
  get: (request: Request): RequestState | undefined => states.get(request),
};

import { signal } from "@preact/signals";

/** Where the app is: the part of the address after `#`, as a path and its query. */
export interface Route {
  /** Path segments, decoded: `#/forms/frm_1/submissions` → ["forms", "frm_1", "submissions"]. */
  parts: string[];
  query: URLSearchParams;
  /** The hash as written, e.g. `#/forms/frm_1?period=week`. */
  hash: string;
}

/** Reads a location hash; anything unreadable is the forms list. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, "") || "/forms";
  const [path = "", search = ""] = raw.split("?", 2);
  const parts = path
    .split("/")
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return { parts: parts.length ? parts : ["forms"], query: new URLSearchParams(search), hash: `#${raw}` };
}

/** A hash from path segments and query values (undefined and "" values are left out). */
export function href(parts: string[], query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, v);
  const qs = q.toString();
  return `#/${parts.map(encodeURIComponent).join("/")}${qs ? `?${qs}` : ""}`;
}

// An email's link to submissions is a real path (a link's `#` part can be lost on its way through
// a mail client; dashboard/page.ts serves these paths): it becomes the app's own route, in place.
const emailed = /^\/dashboard(\/forms\/[^/]+\/submissions(?:\/[^/]+)?)\/?$/.exec(location.pathname);
if (emailed) history.replaceState(null, "", `/dashboard#${emailed[1]}`);

/** The current route; follows the address bar (links, back and forward). */
export const route = signal<Route>(parseHash(location.hash));

/**
 * Set when the user arrives on another page (not another tab or period of the same one): the next
 * page heading to appear takes focus, so a screen reader says where they are and Tab starts there.
 */
export const arrival = { pending: true };
const pageOf = (r: Route) => r.parts.slice(0, 2).join("/");
route.subscribe((r) => {
  if (pageOf(r) !== lastPage) arrival.pending = true;
  lastPage = pageOf(r);
});
let lastPage = "";

/** What the page asks before the address moves to `next`: a question to confirm leaving with, or null. */
type LeaveGuard = (next: Route) => string | null;
let guard: LeaveGuard | null = null;

/** Asks `ask` before each move of the address (links, back and forward); returns what removes it. */
export function guardLeaving(ask: LeaveGuard): () => void {
  guard = ask;
  return () => void (guard === ask && (guard = null));
}

addEventListener("hashchange", () => {
  const next = parseHash(location.hash);
  const question = guard?.(next);
  // The address has already moved: put it back, and the page stays as it is.
  if (question && !confirm(question)) history.replaceState(null, "", route.value.hash);
  else route.value = next;
});

/** Goes to a hash route; `replace` leaves no history entry (a redirect, not a step the user took). */
export function go(hash: string, replace = false): void {
  if (replace) {
    history.replaceState(null, "", hash);
    route.value = parseHash(hash);
  } else location.hash = hash;
}

/** The login route that returns to `back` afterwards. */
export const loginHref = (back: string) => href(["login"], back && !back.startsWith("#/login") ? { next: back } : {});

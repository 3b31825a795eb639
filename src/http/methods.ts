import { NotFoundError } from "elysia";

/**
 * The handler of a route that only guards a path against a less specific pattern: it answers as
 * if nothing were there, so the front's 405 (or OPTIONS) answer lists what the path really serves.
 */
export function notServed(): never {
  throw new NotFoundError();
}

/**
 * For 405 and OPTIONS: the methods the app serves on a path. When several route patterns match
 * (`/forms/submit` and `/forms/:formId`), the router takes the most literal one, and so does this:
 * a path's methods are those of its most specific pattern. Guards (`notServed`) serve nothing.
 */
export function methodsFor(routes: { method: string; path: string; handler?: unknown; hooks?: unknown }[]) {
  const patterns = routes
    .filter((r) => r.handler !== notServed)
    .map((r) => ({
      method: r.method,
      path: r.path,
      // Literal segments weigh more than parameters, the earlier the more.
      rank: r.path
        .split("/")
        .map((s) => (s.startsWith(":") || s === "*" ? "0" : "1"))
        .join(""),
      regex: new RegExp(
        `^${r.path
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replace(/:[^/]+/g, "[^/]+")
          .replace(/\*/g, ".*")}$`,
      ),
    }));
  return (path: string): string[] => {
    const matches = patterns.filter((p) => p.regex.test(path));
    const best = matches.reduce((top, p) => (p.rank > top ? p.rank : top), "");
    return [...new Set(matches.filter((p) => p.rank === best).map((p) => p.method))];
  };
}

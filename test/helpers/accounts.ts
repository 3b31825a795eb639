import type { Role } from "../../src/lib/rights";
import type { TestServer } from "./harness";

/** A password that passes the length rule. */
export const PASSWORD = "correct horse battery staple";

/** Gives the owner (created if new) a password, through the services, for tests that are about something else. */
export const withPassword = (server: TestServer, email: string, password = PASSWORD) =>
  server.services.accounts.setPassword(email, password);

/**
 * POST /api/v1/auth/login as a browser on the server's own page sends it (Origin: the server's URL,
 * unless `origin` says otherwise; null sends none). `cookie` is the `name=value` to send back.
 */
export async function login(
  server: TestServer,
  email: string,
  password = PASSWORD,
  opts: { origin?: string | null; headers?: Record<string, string> } = {},
) {
  const origin = opts.origin === undefined ? server.url : opts.origin;
  const res = await server.json("/api/v1/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json", ...(origin === null ? {} : { origin }), ...opts.headers },
    body: JSON.stringify({ email, password }),
  });
  const setCookie = res.headers.get("set-cookie");
  return { ...res, setCookie, cookie: setCookie ? setCookie.split(";")[0]! : null };
}

/** Headers of a request made with a session, from the server's own page unless `origin` says otherwise (null: no Origin). */
export function session(
  server: TestServer,
  cookie: string,
  origin: string | null = server.url,
): Record<string, string> {
  return { cookie, ...(origin === null ? {} : { origin }) };
}

/**
 * Makes an owner a member of a team with a role, as an accepted invitation would: for tests of what
 * a member may do (invitations have tests of their own). `at` is when they joined (default now).
 */
export async function joinTeam(server: TestServer, teamId: string, ownerId: string, role: Role, at = new Date()) {
  await server.exec(
    "INSERT INTO team_members (team_id, owner_id, role, created_at) VALUES (?, ?, ?, ?)",
    teamId,
    ownerId,
    role,
    at.toISOString(),
  );
}

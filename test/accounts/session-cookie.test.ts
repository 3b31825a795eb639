import { describe, expect, test } from "bun:test";
import { login, PASSWORD, session, withPassword } from "../helpers/accounts";
import { startTestServer } from "../helpers/harness";

const cases = [
  {
    publicUrl: "https://forms.example.com",
    name: "__Host-formsvc_session",
    other: "formsvc_session",
    secure: ["Secure"],
  },
  { publicUrl: "http://forms.internal:8080", name: "formsvc_session", other: "__Host-formsvc_session", secure: [] },
  { publicUrl: "", name: "formsvc_session", other: "__Host-formsvc_session", secure: [] },
];

const attributes = (setCookie: string | null) =>
  setCookie!
    .split(";")
    .map((a) => a.trim())
    .sort();

describe("the session cookie", () => {
  test.each(cases.map((c) => [c.publicUrl || "(unset)", c] as const))(
    "with FORMSVC_PUBLIC_URL %s is named as the server reads it, and logout clears that one",
    async (_, c) => {
      const server = await startTestServer({ config: { publicUrl: c.publicUrl } });
      try {
        const origin = c.publicUrl ? new URL(c.publicUrl).origin : server.url;
        await withPassword(server, "owner@example.com");
        const res = await login(server, "owner@example.com", PASSWORD, { origin });
        expect(res.status).toBe(200);
        const token = res.cookie!.slice(res.cookie!.indexOf("=") + 1);
        // __Host- demands Secure, Path=/ and no Domain, or the browser drops the cookie.
        expect(attributes(res.setCookie)).toEqual(
          ["HttpOnly", `Max-Age=${30 * 86_400}`, "Path=/", "SameSite=Lax", ...c.secure, `${c.name}=${token}`].sort(),
        );

        const me = (cookie: string) => server.json("/api/v1/auth/me", { headers: { cookie } }).then((r) => r.status);
        expect(await me(`${c.name}=${token}`)).toBe(200);
        // The name the server does not set is not read: over https, one a sibling subdomain could have planted.
        expect(await me(`${c.other}=${token}`)).toBe(401);

        const out = await server.request("/api/v1/auth/logout", {
          method: "POST",
          headers: session(server, `${c.name}=${token}`, origin),
        });
        expect(out.status).toBe(204);
        expect(attributes(out.headers.get("set-cookie"))).toEqual(
          ["HttpOnly", "Max-Age=0", "Path=/", "SameSite=Lax", ...c.secure, `${c.name}=`].sort(),
        );
        expect(await me(`${c.name}=${token}`)).toBe(401);
      } finally {
        await server.close();
      }
    },
  );
});

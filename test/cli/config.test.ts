import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { runCli, tempDir } from "../helpers/harness";

type Entry = { key: string; env: string; value: unknown; source: string; doc: string };

/** `formsvc config --json` under the given environment, as a map from setting to entry. */
function effective(args: string[] = [], env: Record<string, string> = {}): Record<string, Entry> {
  const res = runCli([...args, "config", "--json"], { env });
  if (res.code !== 0) throw new Error(`formsvc config exited ${res.code}: ${res.stderr}`);
  return Object.fromEntries((JSON.parse(res.stdout) as Entry[]).map((e) => [e.key, e]));
}

describe("formsvc config", () => {
  test("prints every setting with its default when nothing is set", () => {
    const c = effective();
    expect(c.port).toMatchObject({ env: "FORMSVC_PORT", value: 3000, source: "default" });
    expect(c.host).toMatchObject({ value: "127.0.0.1", source: "default" });
    expect(c.trustProxy).toMatchObject({ value: false, source: "default" });
    expect(c.smtpUrl!.value).toBeNull();
    expect(c.metricsToken!.value).toBe("");
  });

  test("takes a FORMSVC_* variable over the default", () => {
    const c = effective([], { FORMSVC_PORT: "8080", FORMSVC_TRUST_PROXY: "true" });
    expect(c.port).toMatchObject({ value: 8080, source: "env" });
    expect(c.trustProxy).toMatchObject({ value: true, source: "env" });
  });

  test("takes the --db flag over FORMSVC_DB", () => {
    const c = effective(["--db", "/srv/flag.db"], { FORMSVC_DB: "/srv/env.db" });
    expect(c.db).toMatchObject({ value: "/srv/flag.db", source: "flag" });
    expect(effective([], { FORMSVC_DB: "/srv/env.db" }).db).toMatchObject({ value: "/srv/env.db", source: "env" });
  });

  test("never prints the SMTP password or the metrics token", () => {
    const env = { FORMSVC_SMTP_URL: "smtp://u:secretpw@h:587", FORMSVC_METRICS_TOKEN: "metrics-token-1234" };
    for (const args of [["config"], ["config", "--json"]]) {
      const res = runCli(args, { env });
      expect(res.code).toBe(0);
      expect(res.stdout + res.stderr).not.toContain("secretpw");
      expect(res.stdout + res.stderr).not.toContain("metrics-token-1234");
    }
    const c = effective([], env);
    expect(c.smtpUrl!.value).toBe("smtp://u:***@h:587");
    expect(c.metricsToken!.value).toBe("***");
    // Providers that take the API key as the user name alone, or in the query.
    expect(effective([], { FORMSVC_SMTP_URL: "smtp://SG.apikey123@h:587" }).smtpUrl!.value).toBe("smtp://***@h:587");
    expect(effective([], { FORMSVC_SMTP_URL: "smtp://h:587?user=u&password=pw123" }).smtpUrl!.value).toBe(
      "smtp://h:587?user=***&password=***",
    );
  });

  test("reports every invalid setting at once on stderr and exits non-zero", () => {
    const res = runCli(["config"], {
      env: { FORMSVC_PORT: "abc", FORMSVC_RATE_LIMIT: "0", FORMSVC_TRUST_PROXY: "maybe", FORMSVC_HOST: "999.1.1.1" },
    });
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain("FORMSVC_PORT");
    expect(res.stderr).toContain("FORMSVC_RATE_LIMIT");
    expect(res.stderr).toContain("FORMSVC_TRUST_PROXY");
    expect(res.stderr).toContain("FORMSVC_HOST");
    for (const host of ["0.0.0.0", "::1", "localhost", "my_service", "forms.example.com"])
      expect(effective([], { FORMSVC_HOST: host }).host!.value).toBe(host);
  });

  test("does not echo a malformed SMTP URL, which may hold a password", () => {
    const res = runCli(["config"], { env: { FORMSVC_SMTP_URL: "http://u:secretpw@h" } });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("FORMSVC_SMTP_URL");
    expect(res.stderr).not.toContain("secretpw");
  });
});

describe("a database URL other than postgres://", () => {
  test.each([
    ["to keys list by --db", ["--db", "mysql://u:secretpw@db.example.com/forms", "keys", "list"], {}],
    ["to serve", ["serve", "--port", "0"], { FORMSVC_DB: "mysql://u:secretpw@db.example.com/forms" }],
    ["to init", ["init", "--owner", "me@example.com"], { FORMSVC_DB: "sqlite://u:secretpw@x/forms.db" }],
  ] as const)(
    "given %s is a configuration error (exit 2) that hides the password and creates nothing",
    (_how, args, env) => {
      const tmp = tempDir();
      try {
        const res = runCli([...args], { env, cwd: tmp.dir });
        expect(res.code).toBe(2);
        expect(res.stdout).toBe("");
        expect(res.stderr).toMatch(
          /(--db|FORMSVC_DB): a [a-z]+:\/\/ URL; a SQLite file path \(e\.g\. \.\/data\/formsvc\.db\) or a postgres:\/\/ URL/,
        );
        expect(res.stderr).not.toContain("secretpw");
        expect(res.stderr).not.toContain("db.example.com");
        expect(readdirSync(tmp.dir)).toEqual([]);
      } finally {
        tmp.cleanup();
      }
    },
  );

  test("does not catch file paths that merely contain a colon", () => {
    expect(effective([], { FORMSVC_DB: "./backups/2026-01-01T10:00/formsvc.db" }).db!.value).toBe(
      "./backups/2026-01-01T10:00/formsvc.db",
    );
    expect(effective(["--db", "C://data/formsvc.db"]).db!.value).toBe("C://data/formsvc.db");
  });
});

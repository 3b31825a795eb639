import { describe, expect, test } from "bun:test";
import { runCli } from "../helpers/harness";

describe("spam settings", () => {
  test("formsvc config never prints the Turnstile or hCaptcha secret", () => {
    const env = { FORMSVC_TURNSTILE_SECRET: "ts-secret-abcdef", FORMSVC_HCAPTCHA_SECRET: "hc-secret-123456" };
    const res = runCli(["config", "--json"], { env });
    expect(res.code).toBe(0);
    expect(res.stdout + res.stderr).not.toContain("ts-secret-abcdef");
    expect(res.stdout + res.stderr).not.toContain("hc-secret-123456");
    const byKey = Object.fromEntries(
      (JSON.parse(res.stdout) as { key: string; value: unknown }[]).map((e) => [e.key, e.value]),
    );
    expect(byKey).toMatchObject({
      turnstileSecret: "***",
      hcaptchaSecret: "***",
      powMaxCounter: 500,
      turnstileVerifyUrl: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
      hcaptchaVerifyUrl: "https://api.hcaptcha.com/siteverify",
    });
  });

  test("reports an impossible difficulty and verify URLs that are not http(s) at start", () => {
    const res = runCli(["config"], {
      env: {
        FORMSVC_POW_MAX_COUNTER: "0",
        FORMSVC_TURNSTILE_VERIFY_URL: "ftp://example.com/x",
        FORMSVC_HCAPTCHA_VERIFY_URL: "",
      },
    });
    expect(res.code).not.toBe(0);
    for (const env of ["FORMSVC_POW_MAX_COUNTER", "FORMSVC_TURNSTILE_VERIFY_URL", "FORMSVC_HCAPTCHA_VERIFY_URL"])
      expect(res.stderr).toContain(env);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import * as OTPAuth from "otpauth";
import { launchBrowser, type TestBrowser } from "../helpers/browser";
import { logIn, PASSWORD, setPassword } from "../helpers/dashboard";
import { startTestServer, type TestServer } from "../helpers/harness";

const EMAIL = "twostep@example.com";
let browser: TestBrowser;
let server: TestServer;

beforeAll(async () => {
  // A key of its own: on PostgreSQL the default key file would be made in the working folder.
  [browser, server] = await Promise.all([
    launchBrowser(),
    startTestServer({ config: { secretKey: randomBytes(32).toString("base64") } }),
  ]);
  await setPassword(server.db, EMAIL);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("two-step login in the dashboard", () => {
  test("the account page sets it up with a QR code and shows the recovery codes; the login page then asks for a code", async () => {
    const first = await browser.newPage();
    let recovery: string[];
    try {
      const { page } = first;
      await logIn(page, server.url, EMAIL, PASSWORD, "#/account");
      await page.getByRole("heading", { name: "Your account" }).waitFor();
      await page.getByRole("button", { name: "Set up two-step login" }).click();
      const qr = page.getByRole("img", { name: "QR code of the two-step login secret" });
      expect(await qr.getAttribute("src")).toStartWith("data:image/png;base64,");
      const secret = (await page.locator("code").first().textContent())!;
      const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
      await page.getByLabel("Code").fill(totp.generate());
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByRole("button", { name: "Copy the recovery codes" }).waitFor();
      recovery = (await page.locator("pre.recovery-codes").textContent())!.split("\n");
      expect(recovery).toHaveLength(10);
    } finally {
      await first.close();
    }

    const second = await browser.newPage();
    try {
      const { page } = second;
      await page.goto(`${server.url}/dashboard`);
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Log in" }).click();
      await page.getByLabel("Code from your authenticator app, or a recovery code").fill(recovery[0]!);
      await page.getByRole("button", { name: "Log in" }).click();
      await page.getByRole("button", { name: "Log out" }).waitFor();

      // Once on, the account page counts the recovery codes left, renews them and turns it off, each for a code.
      await page.goto(`${server.url}/dashboard#/account`);
      await page.getByText("9 recovery codes left").waitFor();
      await page.getByRole("button", { name: "New recovery codes" }).click();
      await page.getByLabel("Code from your authenticator app, or a recovery code").fill(recovery[1]!);
      await page.getByRole("button", { name: "Make new recovery codes" }).click();
      const renewed = (await page.locator("pre.recovery-codes").textContent())!.split("\n");
      expect(renewed).toHaveLength(10);
      expect(renewed).not.toContain(recovery[2]);
      await page.getByRole("button", { name: "Done" }).click();
      await page.getByText("10 recovery codes left").waitFor();
      await page.getByRole("button", { name: "Turn off (for a new phone)" }).click();
      await page.getByLabel("Code from your authenticator app, or a recovery code").fill(renewed[0]!);
      await page.getByRole("button", { name: "Turn two-step login off" }).click();
      await page.getByRole("button", { name: "Set up two-step login" }).waitFor();
      expect(await server.query("SELECT owner_id FROM totp_secrets")).toEqual([]);
    } finally {
      await second.close();
    }
  }, 60_000);

  test("with FORMSVC_REQUIRE_2FA a person without it sees only the enrolment, told why, and goes on to where they were once it is on", async () => {
    const strict = await startTestServer({
      config: { secretKey: randomBytes(32).toString("base64"), require2fa: true },
    });
    const opened = await browser.newPage();
    try {
      await setPassword(strict.db, EMAIL);
      const { page } = opened;
      await page.goto(`${strict.url}/dashboard#/forms`);
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Log in" }).click();
      await page.getByText("This server requires two-step login: set it up to go on.").waitFor();
      await page.getByRole("button", { name: "Set up two-step login" }).click();
      const secret = (await page.locator("code").first().textContent())!;
      await page.getByLabel("Code").fill(new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate());
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByRole("button", { name: "Copy the recovery codes" }).waitFor();
      await page.getByRole("button", { name: "Go on to the dashboard" }).click();
      await page.getByRole("button", { name: "Log out" }).waitFor();
      expect(page.url()).toEndWith("#/forms");
    } finally {
      await opened.close();
      await strict.close();
    }
  }, 60_000);
});

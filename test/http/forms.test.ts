import { describe, expect, test } from "bun:test";
import { useServer } from "../helpers/fixture";

const server = useServer();
const owner = server.seed("owner@example.com", { name: "Contact", formType: "contact" });

describe("GET /api/v1/forms/{formId}", () => {
  test("returns every field of the form", async () => {
    const { status, body } = await server.json(`/api/v1/forms/${owner.formId}`, { key: owner.key });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      [
        "accentColor",
        "allowedOrigins",
        "autoresponse",
        "confirmRedirectUrl",
        "createdAt",
        "description",
        "doubleOptIn",
        "emailSettings",
        "formType",
        "id",
        "name",
        "retentionDays",
        "publicEndpoint",
        "fields",
        "allowExtraFields",
        "files",
        "paused",
        "closesAt",
        "maxSubmissions",
        "successUrl",
        "errorUrl",
        "recipients",
        "notificationTemplate",
        "fromName",
        "notifyMode",
        "oneResponsePerEmail",
        "partialSubmissions",
        "editableDays",
        "locale",
        "spamSettings",
        "teamId",
        "submissionCount",
        "unread",
        "updatedAt",
        "usersJoinedSettings",
        "warnings",
      ].sort(),
    );
    expect(body).toMatchObject({
      id: owner.formId,
      name: "Contact",
      description: "",
      formType: "contact",
      submissionCount: 0,
      unread: 0,
      usersJoinedSettings: null,
      retentionDays: null,
      // The owner notification's defaults: no list (the owner alone), today's email.
      recipients: [],
      notificationTemplate: null,
      fromName: null,
      notifyMode: "each",
      // Drop-in defaults for a new form: open at /f/, any fields, never closed, formsvc's own pages.
      publicEndpoint: true,
      fields: null,
      allowExtraFields: false,
      files: null,
      paused: false,
      closesAt: null,
      maxSubmissions: null,
      successUrl: null,
      errorUrl: null,
    });
    // The defaults for public submission: any origin, the `_gotcha` honeypot, no challenge.
    expect([body.allowedOrigins, body.spamSettings]).toEqual([
      [],
      {
        honeypotField: "_gotcha",
        challenge: "none",
        blockedWords: [],
        blockedEmailDomains: [],
        blockDisposableEmail: false,
        maxLinks: null,
        duplicateWindowSeconds: null,
        threshold: 0.9,
        recaptchaMinScore: 0.5,
      },
    ]);
    // Outbound defaults: no autoresponse, no double opt-in.
    expect([body.autoresponse, body.doubleOptIn, body.confirmRedirectUrl]).toEqual([
      { enabled: false, subject: "", text: "" },
      false,
      null,
    ]);
    expect(body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

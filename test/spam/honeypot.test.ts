import { beforeAll, describe, expect, test } from "bun:test";
import { honeypotCheck, isFilled } from "../../src/modules/spam/honeypot";
import { useServer } from "../helpers/fixture";
import { seedForm } from "../helpers/harness";
import { candidate } from "../helpers/spam";

const server = useServer({ config: { rateLimit: 100_000 } });
const owner = server.seed("honey@example.com");
let noHoneypotForm: string;
let customHoneypotForm: string;

beforeAll(async () => {
  noHoneypotForm = (await seedForm(server, "honey@example.com", { name: "Open", honeypotField: null })).id;
  customHoneypotForm = (await seedForm(server, "honey@example.com", { name: "Custom", honeypotField: "website" })).id;
});

const run = async (formId: string, data: Record<string, unknown>) => {
  const c = await candidate(server, formId, { data });
  return { verdict: honeypotCheck.check(c), data: c.data };
};

describe("the honeypot check", () => {
  test("marks a submission whose honeypot is filled as spam, and removes the field", async () => {
    for (const value of ["http://spam.example", " x ", 0, 42, true, false, ["", "filled"], { a: "b" }]) {
      const { verdict, data } = await run(owner.formId, { message: "hi", _gotcha: value });
      expect(verdict, JSON.stringify(value)).toBe("spam");
      expect(data).toEqual({ message: "hi" });
    }
  });

  test("accepts a submission whose honeypot is empty, and removes the field", async () => {
    for (const value of ["", "   \n\t", null, [], ["", " "], {}]) {
      const { verdict, data } = await run(owner.formId, { message: "hi", _gotcha: value });
      expect(verdict, JSON.stringify(value)).toBe("accept");
      expect(data).toEqual({ message: "hi" });
    }
    expect(await run(owner.formId, { message: "hi" })).toEqual({ verdict: "accept", data: { message: "hi" } });
  });

  test("uses the form's own field name and leaves other fields alone", async () => {
    expect(await run(customHoneypotForm, { website: "spam.example", _gotcha: "kept" })).toEqual({
      verdict: "spam",
      data: { _gotcha: "kept" },
    });
  });

  test("passes everything through untouched on a form without a honeypot", async () => {
    expect(await run(noHoneypotForm, { message: "hi", _gotcha: "filled" })).toEqual({
      verdict: "accept",
      data: { message: "hi", _gotcha: "filled" },
    });
  });

  test("counts only non-blank strings and non-empty values as filled", () => {
    expect([" a", 0, [[["x"]]], { nested: { deep: 1 } }].map(isFilled)).toEqual([true, true, true, true]);
    expect(["\u00a0 ", undefined, [[[]]], { nested: { deep: "" } }].map(isFilled)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("the honeypot in the submit pipeline", () => {
  const submit = (body: BodyInit, contentType: string) =>
    server.json("/api/v1/forms/submit", {
      method: "POST",
      key: owner.key,
      headers: { "content-type": contentType },
      body,
    });
  const row = async (id: string) =>
    (await server.query<{ status: string; data: string }>("SELECT status, data FROM submissions WHERE id = ?", id))[0]!;
  const submissionCount = async () => (await server.services.forms.requireForm(owner.formId)).submissionCount;

  test("stores a JSON submission with a filled honeypot as spam, answered like any other, without the field and without counting it", async () => {
    const before = await submissionCount();
    const res = await submit(
      JSON.stringify({ formId: owner.formId, data: { email: "bot@example.com", _gotcha: "http://spam.example" } }),
      "application/json",
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, submissionId: expect.stringMatching(/^sub_/) });
    const stored = await row(res.body.submissionId);
    expect(stored.status).toBe("spam");
    expect(JSON.parse(stored.data)).not.toHaveProperty("_gotcha");
    expect(await submissionCount()).toBe(before);
  });

  test("stores a browser form post with an empty honeypot in the inbox, without the field", async () => {
    const before = await submissionCount();
    const res = await submit(
      new URLSearchParams({ formId: owner.formId, message: "hello", _gotcha: "" }).toString(),
      "application/x-www-form-urlencoded",
    );
    expect(res.status).toBe(200);
    const stored = await row(res.body.submissionId);
    expect(stored.status).toBe("inbox");
    expect(JSON.parse(stored.data)).toMatchObject({ message: "hello" });
    expect(JSON.parse(stored.data)).not.toHaveProperty("_gotcha");
    expect(await submissionCount()).toBe(before + 1);
  });
});

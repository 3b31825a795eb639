import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PAGE_CSP } from "../../src/http/assets";
import { OPERATOR } from "../../src/lib/principal";
import { hostedFormPage } from "../../src/modules/dropin/form-page";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

let server: TestServer;
let key: string;

const api = (method: string, path: string, body?: unknown) =>
  server.json(`/api/v1${path}`, {
    method,
    key,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const newForm = async (settings: Record<string, unknown>): Promise<string> => {
  const { status, body } = await api("POST", "/forms", { name: "Contact us", ...settings });
  expect(status).toBe(200);
  return body.id;
};
/** The page as a browser gets it: plain fetch, as its 404 is a page and not the API's JSON. */
const page = async (path: string) => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
};
const formOf = (id: string) => server.services.forms.formFor(OPERATOR, id);

type Element = { tag: string; attrs: Record<string, string>; text: string };
const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
/** Text as a browser reads it: HTMLRewriter hands attributes and text over as written. */
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
/** The elements matching `selector`, each with its attributes and text: the page read as a browser would, not as a string. */
async function select(html: string, selector: string): Promise<Element[]> {
  const found: Element[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(el) {
        const item: Element = {
          tag: el.tagName,
          attrs: Object.fromEntries([...el.attributes].map(([k, v]) => [k, decode(v)])),
          text: "",
        };
        found.push(item);
      },
      text(chunk) {
        const last = found.at(-1);
        if (last) last.text += decode(chunk.text);
      },
    })
    .transform(new Response(html))
    .text();
  return found;
}

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  key = (await seedOwner(server, "hosted@example.com")).key;
});
afterAll(() => server.close());

const FIELDS = [
  { name: "name", type: "text", label: "Your name", required: true, minLength: 2, maxLength: 80, placeholder: "Ada" },
  { name: "email", type: "email", label: "Email", required: true },
  { name: "site", type: "url" },
  { name: "phone", type: "tel", placeholder: "+44 …" },
  { name: "age", type: "number", min: 18, max: 120 },
  { name: "day", type: "date", min: "2026-01-01", max: "2026-12-31" },
  { name: "message", type: "textarea", label: "Message", maxLength: 500 },
  { name: "agree", type: "checkbox", label: "I agree", required: true },
  { name: "topics", type: "checkbox", label: "Topics", options: ["sales", "support"], multiple: true },
  { name: "size", type: "select", options: ["S", "M", "L"], required: true },
  { name: "colours", type: "select", options: ["red", "blue"], multiple: true },
  { name: "contact", type: "radio", label: "Reach me by", options: ["email", "phone"], required: true },
  { name: "source", type: "hidden" },
];

describe("GET /f/{formId}: the hosted page", () => {
  let formId: string;
  let html: string;
  beforeAll(async () => {
    formId = await newForm({ description: "We answer within a day.", fields: FIELDS });
    const res = await page(`/f/${formId}`);
    expect(res.status).toBe(200);
    html = res.html;
  });

  test("is titled by the form's name, with its description above a form that posts urlencoded to /f/{formId}", async () => {
    expect((await select(html, "html"))[0]!.attrs.lang).toBe("en");
    expect((await select(html, "title"))[0]!.text).toBe("Contact us");
    expect((await select(html, "h1"))[0]!.text).toBe("Contact us");
    expect((await select(html, ".description"))[0]!.text).toBe("We answer within a day.");
    expect((await select(html, "form"))[0]!.attrs).toEqual({
      method: "post",
      action: `/f/${formId}`,
      enctype: "application/x-www-form-urlencoded",
    });
  });

  const inputs: [name: string, attrs: Record<string, string>][] = [
    ["name", { type: "text", required: "", minlength: "2", maxlength: "80", placeholder: "Ada", autocomplete: "name" }],
    ["email", { type: "email", required: "", autocomplete: "email" }],
    ["site", { type: "url" }],
    ["phone", { type: "tel", placeholder: "+44 …", autocomplete: "tel" }],
    ["age", { type: "number", min: "18", max: "120", step: "any" }],
    ["day", { type: "date", min: "2026-01-01", max: "2026-12-31" }],
    ["agree", { type: "checkbox", required: "", value: "true" }],
    ["source", { type: "hidden" }],
  ];
  for (const [name, attrs] of inputs)
    test(`builds the ${name} field as an input of type ${attrs.type} with its rule's attributes`, async () => {
      const [input, ...more] = await select(html, `input[name="${name}"]`);
      expect(more).toEqual([]);
      const { id, name: n, ...rest } = input!.attrs;
      expect({ name: n, ...rest }).toEqual({ name, ...attrs });
      if (attrs.type === "hidden") return expect(id).toBeUndefined();
      // Its label is tied to it, and a required one carries the mark.
      const [label] = await select(html, `label[for="${id}"]`);
      const rule = FIELDS.find((f) => f.name === name)!;
      expect(label!.text).toContain(rule.label ?? rule.name);
      expect(label!.text.includes("*")).toBe(rule.required === true);
    });

  test("builds a textarea with its length limit and its label", async () => {
    const [area] = await select(html, 'textarea[name="message"]');
    expect(area!.attrs).toMatchObject({ maxlength: "500", rows: "5" });
    expect((await select(html, `label[for="${area!.attrs.id}"]`))[0]!.text).toBe("Message");
  });

  test("builds selects with their options, a blank choice for a single one, and multiple for a multiple one", async () => {
    const [size] = await select(html, 'select[name="size"]');
    expect(size!.attrs).toMatchObject({ required: "" });
    expect(size!.attrs.multiple).toBeUndefined();
    const sizes = await select(html, `select[name="size"] option`);
    expect(sizes.map((o) => [o.attrs.value, o.text])).toEqual([
      ["", "Choose…"],
      ["S", "S"],
      ["M", "M"],
      ["L", "L"],
    ]);
    expect((await select(html, 'select[name="colours"]'))[0]!.attrs).toMatchObject({ multiple: "" });
    expect((await select(html, 'select[name="colours"] option')).map((o) => o.attrs.value)).toEqual(["red", "blue"]);
  });

  test("builds radio and checkbox groups in a fieldset named by its legend, required on radios only", async () => {
    const legends = (await select(html, "legend")).map((l) => l.text);
    expect(legends).toEqual(["Topics", "Reach me by *"]);
    const topics = await select(html, 'input[name="topics"]');
    expect(topics.map((i) => [i.attrs.type, i.attrs.value, i.attrs.required])).toEqual([
      ["checkbox", "sales", undefined],
      ["checkbox", "support", undefined],
    ]);
    const contact = await select(html, 'input[name="contact"]');
    expect(contact.map((i) => [i.attrs.type, i.attrs.value, i.attrs.required])).toEqual([
      ["radio", "email", ""],
      ["radio", "phone", ""],
    ]);
  });

  test("carries the honeypot off screen, hidden from screen readers, out of the tab order and never autofilled", async () => {
    const [trap] = await select(html, 'input[name="_gotcha"]');
    expect(trap!.attrs).toMatchObject({ tabindex: "-1", autocomplete: "off" });
    expect((await select(html, ".hp"))[0]!.attrs["aria-hidden"]).toBe("true");
    const css = await (await fetch(`${server.url}/f/assets/page.css`)).text();
    expect(css).toContain(".hp { position: absolute; left: -10000px;");
  });

  test("carries no script and no widget when the form's challenge is not pow", async () => {
    expect(await select(html, "script")).toEqual([]);
    expect(await select(html, "altcha-widget")).toEqual([]);
  });

  test("is served with the dashboard's policy, framed only by formsvc's own pages, and a stylesheet from the binary", async () => {
    const { headers } = await page(`/f/${formId}`);
    expect(headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = headers.get("content-security-policy")!;
    for (const rule of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'self'"])
      expect(csp).toContain(rule);
    expect(csp).not.toContain("unsafe-inline");
    expect(PAGE_CSP).toContain("style-src 'self'");
    expect(headers.get("x-frame-options")).toBe("SAMEORIGIN");
    // No inline style for the policy to refuse.
    expect(html).not.toContain("style=");
    expect(html).not.toContain("<style");
    const [sheet] = await select(html, 'link[rel="stylesheet"]');
    const css = await fetch(`${server.url}${sheet!.attrs.href}`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toContain("prefers-color-scheme: dark");
  });
});

describe("the hosted page of a form whose challenge is pow", () => {
  test("carries the ALTCHA widget from formsvc, fed by a challenge at /f/{formId}/challenge that needs no key", async () => {
    const formId = await newForm({ fields: [{ name: "email", type: "email" }], spamSettings: { challenge: "pow" } });
    const { html } = await page(`/f/${formId}`);
    expect((await select(html, "script")).map((s) => s.attrs)).toEqual([{ async: "", src: "/widget/altcha.js" }]);
    const [widget] = await select(html, "form altcha-widget");
    expect(widget!.attrs.challenge).toBe(`/f/${formId}/challenge`);
    // Its stylesheet under the id the widget looks for, so it injects no <style> the policy would refuse.
    const [sheet] = await select(html, "link#altcha-css");
    expect((await fetch(`${server.url}${sheet!.attrs.href}`)).status).toBe(200);

    const challenge = await fetch(`${server.url}${widget!.attrs.challenge}`);
    expect(challenge.status).toBe(200);
    expect(challenge.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(await challenge.json())).toEqual(expect.arrayContaining(["parameters", "signature"]));
  });

  test("refuses a challenge for an id that serves no /f/ form, as POST /f/ does", async () => {
    const off = await newForm({ publicEndpoint: false });
    for (const id of [off, "frm_unknown"]) {
      const res = await server.json(`/f/${id}/challenge`);
      expect([res.status, res.body.code]).toEqual([404, "FORM_NOT_FOUND"]);
    }
  });
});

describe("a form posting files", () => {
  test("posts multipart, with a file input", async () => {
    const formId = await newForm({ fields: [{ name: "cv", type: "file", label: "Your CV" }] });
    const { html } = await page(`/f/${formId}`);
    expect((await select(html, "form"))[0]!.attrs.enctype).toBe("multipart/form-data");
    expect((await select(html, 'input[name="cv"]'))[0]!.attrs.type).toBe("file");
  });
});

describe("hostile text in a form's settings", () => {
  test("is escaped everywhere it appears: name, description, label, placeholder, option", async () => {
    const evil = `<script>alert("x")</script>`;
    const formId = await newForm({
      name: evil,
      description: evil,
      fields: [
        { name: "a", type: "text", label: evil, placeholder: evil },
        { name: "b", type: "select", options: [evil, "ok"] },
      ],
    });
    const { html } = await page(`/f/${formId}`);
    expect(html).not.toContain("<script>");
    expect(await select(html, "script")).toEqual([]);
    expect((await select(html, "title"))[0]!.text).toBe(evil);
    expect((await select(html, "label"))[0]!.text).toBe(evil);
    expect((await select(html, 'input[name="a"]'))[0]!.attrs.placeholder).toBe(evil);
    expect((await select(html, 'select[name="b"] option'))[1]!.attrs.value).toBe(evil);
  });
});

describe("a refused post shown again (hostedFormPage)", () => {
  let formId: string;
  beforeAll(async () => {
    formId = await newForm({ fields: FIELDS });
  });

  test("fills each field with the values sent, escaped", async () => {
    const html = hostedFormPage(await formOf(formId), {
      values: {
        name: `Ada "<b>"`,
        email: "ada@",
        age: 42,
        message: "</textarea><script>x</script>",
        agree: "true",
        topics: ["support"],
        size: "M",
        colours: ["red", "blue"],
        contact: "phone",
        source: "newsletter",
      },
    });
    const value = async (sel: string) => (await select(html, sel))[0]!.attrs.value;
    expect(await value('input[name="name"]')).toBe(`Ada "<b>"`);
    expect(await value('input[name="email"]')).toBe("ada@");
    expect(await value('input[name="age"]')).toBe("42");
    expect(await value('input[name="source"]')).toBe("newsletter");
    expect((await select(html, 'textarea[name="message"]'))[0]!.text).toBe("</textarea><script>x</script>");
    expect(await select(html, "script")).toEqual([]);
    const on = async (sel: string, attr: string) => (await select(html, sel)).map((e) => e.attrs[attr] !== undefined);
    expect(await on('input[name="agree"]', "checked")).toEqual([true]);
    expect(await on('input[name="topics"]', "checked")).toEqual([false, true]);
    expect(await on('input[name="contact"]', "checked")).toEqual([false, true]);
    expect(await on('select[name="size"] option', "selected")).toEqual([false, false, true, false]);
    expect(await on('select[name="colours"] option', "selected")).toEqual([true, true]);
  });

  test("puts each problem beside its field, marks the field invalid, and links to it from a summary at the top", async () => {
    // As the field rules write them: each message names its field by its label.
    const problems = [
      { field: "email", code: "TYPE_EMAIL", message: '"Email" must be an email address' },
      { field: "contact", code: "REQUIRED_FIELD_MISSING", message: '"Reach me by" is required' },
      { field: "nope", code: "UNKNOWN_FIELD", message: "nope is not a field of this form" },
    ];
    const html = hostedFormPage(await formOf(formId), { values: { email: "ada@" }, problems });
    const [email] = await select(html, 'input[name="email"]');
    expect(email!.attrs["aria-invalid"]).toBe("true");
    const [error] = await select(html, `#${email!.attrs["aria-describedby"]}`);
    expect(error!.text).toBe('"Email" must be an email address');
    const radios = await select(html, 'input[name="contact"]');
    expect(radios.every((r) => r.attrs["aria-invalid"] === "true")).toBe(true);
    expect((await select(html, `#${radios[0]!.attrs["aria-describedby"]}`))[0]!.text).toBe('"Reach me by" is required');
    // Fields without a problem are not marked.
    expect((await select(html, 'input[name="name"]'))[0]!.attrs["aria-invalid"]).toBeUndefined();

    const [summary] = await select(html, ".summary");
    expect(summary!.attrs.role).toBe("alert");
    const links = await select(html, ".summary a");
    expect(links.map((a) => [a.attrs.href, a.text])).toEqual([
      [`#${email!.attrs.id}`, '"Email" must be an email address'],
      [`#${radios[0]!.attrs.id}`, '"Reach me by" is required'],
    ]);
    expect((await select(html, ".summary li")).at(-1)!.text).toBe("nope is not a field of this form");
  });

  test("shows its notice above the form, escaped", async () => {
    const html = hostedFormPage(await formOf(formId), { notice: "Too many posts <now>; try again in a minute." });
    const [notice] = await select(html, ".notice");
    expect(notice!.text).toBe("Too many posts <now>; try again in a minute.");
    expect(html).not.toContain("<now>");
    expect(html.indexOf('class="notice"')).toBeLessThan(html.indexOf("<form"));
    expect(await select(html, ".summary")).toEqual([]);
  });
});

describe("a closed form's page", () => {
  const cases: [why: string, settings: Record<string, unknown>, says: string][] = [
    ["paused", { paused: true }, "not taking submissions right now"],
    ["past its closesAt", { closesAt: "2020-01-01T00:00:00.000Z" }, "stopped taking submissions at 2020-01-01"],
    ["at its maxSubmissions", { maxSubmissions: 1 }, "taken all the submissions it accepts"],
  ];
  for (const [why, settings, says] of cases)
    test(`says the form is closed and shows no form when it is ${why}`, async () => {
      const formId = await newForm({ fields: [{ name: "email", type: "email" }] });
      if (settings.maxSubmissions) {
        const sent = await server.submit(key, formId, { email: "first@example.com" });
        expect(sent.status).toBe(200);
      }
      const before = await page(`/f/${formId}`);
      expect(await select(before.html, "form")).toHaveLength(1);
      expect((await api("PATCH", `/forms/${formId}`, settings)).status).toBe(200);
      const { status, html } = await page(`/f/${formId}`);
      expect(status).toBe(200);
      expect(await select(html, "form")).toEqual([]);
      expect((await select(html, ".notice"))[0]!.text).toContain(says);
      expect((await select(html, "h1"))[0]!.text).toBe("Contact us");
    });
});

describe("an address that serves no hosted page", () => {
  const cases: [why: string, make: () => Promise<string>][] = [
    ["an unknown form", async () => "frm_doesnotexist"],
    ["a form without fields", () => newForm({})],
    [
      "a form whose publicEndpoint is off",
      () => newForm({ fields: [{ name: "a", type: "text" }], publicEndpoint: false }),
    ],
  ];
  for (const [why, make] of cases)
    test(`is a 404 page for ${why}`, async () => {
      const { status, headers, html } = await page(`/f/${await make()}`);
      expect(status).toBe(404);
      expect(headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect((await select(html, "h1"))[0]!.text).toBe("Form not found");
      expect(await select(html, "form")).toEqual([]);
    });
});

describe("a refused post from the hosted page (POST /f/{formId})", () => {
  test("comes back as the hosted page with the values kept, the problem beside its field, and the page's own policy", async () => {
    const formId = await newForm({ fields: FIELDS.slice(0, 2) });
    const res = await fetch(`${server.url}/f/${formId}`, {
      method: "POST",
      headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Ada <Lovelace>", email: "not-an-address" }),
    });
    expect(res.status).toBe(400);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("worker-src blob:");
    expect(csp).toContain("frame-ancestors 'self'");
    const html = await res.text();
    expect((await select(html, 'input[name="name"]'))[0]!.attrs.value).toBe("Ada <Lovelace>");
    const [email] = await select(html, 'input[name="email"]');
    expect([email!.attrs.value, email!.attrs["aria-invalid"]]).toEqual(["not-an-address", "true"]);
    expect((await select(html, `#${email!.attrs["aria-describedby"]}`))[0]!.text).not.toBe("");
    expect(await api("GET", `/forms/${formId}/submissions`).then((r) => r.body.submissions)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LANGUAGES } from "../../src/modules/dropin/languages";
import { CATALOGUES, type TextKey } from "../../src/modules/dropin/locale";
import { seedOwner, startTestServer, type TestServer } from "../helpers/harness";

describe("the catalogues", () => {
  const en = CATALOGUES.en as Record<string, unknown>;
  const placeholders = (entry: unknown): string[] => {
    const texts = typeof entry === "string" ? [entry] : Object.values(entry as Record<string, string>);
    return [...new Set(texts.flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)))].sort();
  };
  // The plural forms a count of things takes in a language (Polish: one, few, many; Japanese: other).
  const categoriesOf = (lang: string) => {
    const rules = new Intl.PluralRules(lang);
    return [...new Set(Array.from({ length: 201 }, (_, n) => rules.select(n)))].sort();
  };

  for (const lang of LANGUAGES)
    test(`${lang}: every key of English's and no other, each with English's placeholders and its own plural forms`, () => {
      const catalogue = CATALOGUES[lang] as Record<string, unknown>;
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
      for (const key of Object.keys(en)) {
        const entry = catalogue[key];
        expect({ key, plural: typeof entry === "object" }).toEqual({ key, plural: typeof en[key] === "object" });
        expect({ key, placeholders: placeholders(entry) }).toEqual({ key, placeholders: placeholders(en[key]) });
        if (typeof entry === "object") {
          const forms = Object.keys(entry as object);
          for (const category of categoriesOf(lang))
            expect({ key, forms }).toEqual({ key, forms: expect.arrayContaining([category]) });
        } else expect({ key, text: (entry as string).trim() }).not.toEqual({ key, text: "" });
      }
    });

  test("a text other than English's is written for its language (none left in English)", () => {
    for (const lang of LANGUAGES.filter((l) => l !== "en")) {
      const same = (Object.keys(en) as TextKey[]).filter(
        (k) => !k.startsWith("sep.") && JSON.stringify(CATALOGUES[lang][k]) === JSON.stringify(en[k]),
      );
      // What may read the same: a quote mark shared with English.
      expect({ lang, same: same.filter((k) => k !== "quote" && k !== "page.quote") }).toEqual({ lang, same: [] });
    }
  });
});

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  key = (await seedOwner(server, "locale@example.com")).key;
});
afterAll(() => server.close());

const FIELDS = [
  { name: "name", type: "text", label: "Your name", required: true, minLength: 2 },
  { name: "email", type: "email", label: "Email", required: true },
  { name: "size", type: "select", label: "Size", options: ["S", "M"] },
];
const newForm = async (settings: Record<string, unknown>): Promise<string> => {
  const { status, body } = await server.send("POST", "/forms", key, {
    name: "Contact us",
    fields: FIELDS,
    ...settings,
  });
  expect(status).toBe(200);
  return body.id;
};
const page = async (path: string, language?: string) => {
  const res = await fetch(`${server.url}${path}`, { headers: language ? { "accept-language": language } : {} });
  return {
    status: res.status,
    language: res.headers.get("content-language"),
    vary: res.headers.get("vary"),
    html: await res.text(),
  };
};
/** A browser's form post: answered with a page. */
const formPost = async (formId: string, fields: Record<string, string>, language?: string) => {
  const res = await fetch(`${server.url}/f/${formId}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
      ...(language ? { "accept-language": language } : {}),
    },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
  return { status: res.status, language: res.headers.get("content-language"), html: await res.text() };
};
const jsonPost = async (formId: string, data: Record<string, unknown>, language?: string) => {
  const res = await fetch(`${server.url}/f/${formId}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(language ? { "accept-language": language } : {}) },
    body: JSON.stringify(data),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const stored = async (formId: string) =>
  (await server.query<{ n: number }>("SELECT count(*) AS n FROM submissions WHERE form_id = ?", formId))[0]!.n;

describe("the locale setting", () => {
  test("auto by default; a language is kept and shown; anything else is a 400 that changes nothing", async () => {
    const id = await newForm({});
    expect((await server.send("GET", `/forms/${id}`, key)).body.locale).toBe("auto");
    expect((await server.send("PATCH", `/forms/${id}`, key, { locale: "pl" })).body.locale).toBe("pl");
    for (const bad of ["xx", "DE", "de-CH", "", 1, null]) {
      const res = await server.send("PATCH", `/forms/${id}`, key, { locale: bad });
      expect({ bad, status: res.status, code: res.body.code }).toEqual({ bad, status: 400, code: "INVALID_PARAMETER" });
      expect(res.body.error).toContain("locale must be one of auto, en, de");
    }
    expect((await server.send("GET", `/forms/${id}`, key)).body.locale).toBe("pl");
  });
});

describe("a German form", () => {
  let id: string;
  beforeAll(async () => {
    id = await newForm({ locale: "de", name: "Kontakt" });
  });

  test("its hosted page is German, whatever the visitor's browser asks, with the owner's labels as written", async () => {
    const { status, language, vary, html } = await page(`/f/${id}`, "en-GB, en;q=0.9");
    expect(status).toBe(200);
    expect(language).toBe("de");
    expect(vary ?? "").not.toContain("Accept-Language"); // the same page for everyone
    expect(html).toContain('<html lang="de">');
    expect(html).toContain("Mit <span");
    expect(html).toContain("markierte Felder sind Pflichtfelder.");
    expect(html).toContain(">Absenden</button>");
    expect(html).toContain(">Bitte wählen…</option>");
    expect(html).toContain("Your name");
    expect(html).not.toContain(">Send</button>");
    expect(html).not.toContain("are required");
  });

  test("a refused post comes back German: the sentence, the summary and each field's problem", async () => {
    const { status, language, html } = await formPost(id, { name: "A", email: "" }, "en");
    expect(status).toBe(400);
    expect(language).toBe("de");
    expect(html).toContain("Einige Angaben müssen noch korrigiert werden.");
    expect(html).toContain("Bitte prüfen Sie diese 2 Angaben");
    expect(html).toContain("„Your name“ muss mindestens 2 Zeichen lang sein");
    expect(html).toContain("„Email“ ist ein Pflichtfeld");
    expect(html).not.toContain("is required");
    expect(await stored(id)).toBe(0);
  });

  test("its thank-you page, closed page and error page are German", async () => {
    const thanks = await page(`/f/${id}/thanks`);
    expect(thanks.language).toBe("de");
    expect(thanks.html).toContain("Vielen Dank!");
    expect(thanks.html).toContain("Ihre Antwort auf „Kontakt“ wurde gesendet.");

    const closed = await newForm({ locale: "de", paused: true });
    const shut = await page(`/f/${closed}`);
    expect(shut.html).toContain("Dieses Formular ist leider geschlossen: Es nimmt zurzeit keine Antworten entgegen.");
    // A post to it anyway: the page again, the German sentence above it.
    const refused = await formPost(closed, { name: "Ada", email: "ada@example.com" });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("Dieses Formular ist geschlossen und nimmt keine Antworten mehr entgegen.");
    // From a script: the refusal's message as the page would say it, its code the API's.
    const json = await jsonPost(closed, { name: "Ada", email: "ada@example.com" });
    expect(json.body.code).toBe("FORM_CLOSED");
    expect(json.body.errors).toEqual([
      { code: "FORM_CLOSED", message: "Dieses Formular ist geschlossen und nimmt keine Antworten mehr entgegen." },
    ]);
    // With no form behind the address, the error page.
    const lost = await formPost("no-such-form", { name: "Ada" }, "de-AT");
    expect(lost.language).toBe("de");
    expect(lost.html).toContain("Ihr Formular wurde nicht gesendet");
    expect(lost.html).toContain("Unter dieser Adresse gibt es kein Formular.");
  });
});

test("a pow form's page loads the widget's words in its language, from formsvc", async () => {
  const id = await newForm({ locale: "pl", spamSettings: { challenge: "pow" } });
  const { html } = await page(`/f/${id}`);
  expect(html).toContain('language="pl"></altcha-widget>');
  expect(html).toContain(
    '<script defer src="/widget/altcha.js"></script>\n<script defer src="/widget/altcha-pl.js"></script>',
  );
  const pack = await fetch(`${server.url}/widget/altcha-pl.js`);
  expect(pack.status).toBe(200);
  expect(pack.headers.get("content-type")).toStartWith("text/javascript");
  expect(await pack.text()).toContain('i18n.set("pl"');
  for (const none of ["altcha-en.js", "altcha-xx.js", "altcha-pl.css"])
    expect({ none, status: (await fetch(`${server.url}/widget/${none}`)).status }).toEqual({ none, status: 404 });
});

describe("auto: the visitor's Accept-Language", () => {
  let id: string;
  beforeAll(async () => {
    id = await newForm({});
  });

  test("the language weighted highest that formsvc has: French for fr-CH, de;q=0.5", async () => {
    const { language, vary, html } = await page(`/f/${id}`, "fr-CH, de;q=0.5");
    expect(language).toBe("fr");
    expect(vary).toContain("Accept-Language");
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain(">Envoyer</button>");
    expect((await jsonPost(id, { email: "x" }, "fr-CH, de;q=0.5")).body.errors).toEqual([
      { field: "name", code: "REQUIRED_FIELD_MISSING", message: "Le champ «\u00a0Your name\u00a0» est obligatoire" },
      { field: "email", code: "TYPE_EMAIL", message: "Le champ «\u00a0Email\u00a0» doit être une adresse e-mail" },
    ]);
    // Weights, not order: German here.
    expect((await page(`/f/${id}`, "fr;q=0.2, de")).language).toBe("de");
  });

  test("English for a language formsvc does not have, or none asked", async () => {
    for (const asked of ["sv-SE, fi;q=0.8", "*", undefined]) {
      const { language, html } = await page(`/f/${id}`, asked);
      expect({ asked, language }).toEqual({ asked, language: "en" });
      expect(html).toContain('<html lang="en">');
      expect(html).toContain(">Send</button>");
    }
    expect((await jsonPost(id, { email: "ada@example.com" }, "sv")).body.errors[0].message).toBe(
      '"Your name" is required',
    );
  });

  test("the page for no form speaks the visitor's language", async () => {
    const { status, language, html } = await page("/f/no-such-form", "nl-BE");
    expect(status).toBe(404);
    expect(language).toBe("nl");
    expect(html).toContain("Formulier niet gevonden");
  });
});

describe("a Japanese form", () => {
  let id: string;
  beforeAll(async () => {
    id = await newForm({ locale: "ja" });
  });

  test("errors[].message and the sentence built from them are Japanese, on /f/ and the API alike; codes stay", async () => {
    const expected = [
      { field: "name", code: "TOO_SHORT", message: "「Your name」は2文字以上で入力してください" },
      { field: "email", code: "TYPE_EMAIL", message: "「Email」にはメールアドレスを入力してください" },
      { field: "size", code: "NOT_AN_OPTION", message: "「Size」は次のいずれかを選んでください：S、M" },
    ];
    const data = { name: "A", email: "nope", size: "XL" };
    const dropIn = await jsonPost(id, data, "en-US");
    expect(dropIn.status).toBe(400);
    expect(dropIn.body.code).toBe("VALIDATION_FAILED");
    expect(dropIn.body.errors).toEqual(expected);
    expect(dropIn.body.error).toBe(`3件の項目に問題があります：${expected.map((e) => e.message).join(" / ")}`);

    const api = await server.submit(key, id, data, { "accept-language": "en-US" });
    expect(api.status).toBe(400);
    expect(api.body.code).toBe("VALIDATION_FAILED");
    expect(api.body.errors).toEqual(expected);
    expect(await stored(id)).toBe(0);
  });

  test("one problem: its message is the error", async () => {
    const { body } = await jsonPost(id, { name: "Ada", email: "ada@example.com", other: "x" });
    expect(body.errors).toEqual([
      { field: "other", code: "UNKNOWN_FIELD", message: "「other」はこのフォームの項目ではありません" },
    ]);
    expect(body.error).toBe(body.errors[0].message);
  });
});

test("Polish counts in its three forms", async () => {
  const id = await newForm({
    locale: "pl",
    fields: [
      { name: "a", type: "text", minLength: 1 },
      { name: "b", type: "text", minLength: 3 },
      { name: "c", type: "text", minLength: 5 },
      { name: "d", type: "text", minLength: 22 },
    ],
  });
  const { body } = await jsonPost(id, { a: "", b: "x", c: "x", d: "x" });
  expect(body.errors.map((e: { message: string }) => e.message)).toEqual([
    "Pole „b” musi mieć co najmniej 3 znaki",
    "Pole „c” musi mieć co najmniej 5 znaków",
    "Pole „d” musi mieć co najmniej 22 znaki",
  ]);
  expect(body.error).toStartWith("Problemy w 3 polach: ");
});

describe("save and resume, and edits, in the form's language", () => {
  /** A browser's post that is not followed: its status, language, page and where it sends the browser. */
  const browserPost = async (path: string, fields: Record<string, string>) => {
    const res = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", "accept-language": "en" },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
    const { status, headers } = res;
    return {
      status,
      language: headers.get("content-language"),
      location: headers.get("location"),
      html: await res.text(),
    };
  };
  const path = (url: string) => url.replace(server.url, "").replaceAll("&amp;", "&");
  const germanTime = (iso: string) =>
    `${new Intl.DateTimeFormat("de", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(new Date(iso))} UTC`;

  test("German: the save button and box, the saved page (no script), and the resume page's notices", async () => {
    const id = await newForm({ locale: "de", name: "Kontakt", partialSubmissions: true });
    const form = await page(`/f/${id}`, "en");
    expect(form.html).toContain(">Speichern und später fortfahren</button>");
    expect(form.html).toContain("Ihre Antworten sind gespeichert. Um später weiterzumachen, öffnen Sie diesen Link");
    expect(form.html).toContain('<label for="resume-email">Link per E-Mail zusenden</label>');
    expect(form.html).not.toContain("Save and continue later");

    const saved = await browserPost(`/f/${id}/partial`, { name: "Ada" });
    expect([saved.status, saved.language]).toEqual([200, "de"]);
    expect(saved.html).toContain('<html lang="de">');
    expect(saved.html).toContain("<h1>Ihre Antworten sind gespeichert</h1>");
    expect(saved.html).toContain("Um später weiterzumachen, öffnen Sie diesen Link (jede Person, die ihn hat,");
    expect(saved.html).toContain(">Jetzt fortfahren</a>");
    expect(saved.html).not.toContain("To finish later");
    expect(saved.html).not.toContain("<script");

    const link = /href="([^"]*\/resume\?token=[^"]+)"/.exec(saved.html)![1]!;
    const resumed = await page(path(link), "en");
    expect([resumed.status, resumed.language]).toEqual([200, "de"]);
    expect(resumed.html).toContain("Willkommen zurück: Ihre bisherigen Antworten sind bereits ausgefüllt.");
    const gone = await page(`/f/${id}/resume?token=nothing.here`, "en");
    expect(gone.status).toBe(404);
    expect(gone.html).toContain("Diese gespeicherten Antworten gibt es nicht mehr");
  });

  test("German: the thank-you page's edit link with its date, the edit page's notice, a link that does not open", async () => {
    const id = await newForm({ locale: "de", name: "Kontakt", editableDays: 7 });
    const sent = await browserPost(`/f/${id}`, { name: "Ada", email: "ada@example.com" });
    expect(sent.status).toBe(303);
    const thanks = await page(path(sent.location!), "en");
    const edit = /<a href="([^"]*\/edit\/[^"]+)">/.exec(thanks.html)![1]!;
    const until = new URL(path(edit), server.url).searchParams.get("until")!;
    expect(thanks.html).toContain(
      `Bis ${germanTime(until)} können Sie <a href="${edit}">Ihre Antworten ändern</a>. Bitte bewahren Sie diesen Link auf.`,
    );
    expect(thanks.html).not.toContain("change your answers");

    const editing = await page(path(edit), "en");
    expect([editing.status, editing.language]).toEqual([200, "de"]);
    expect(editing.html).toContain(
      `Sie ändern gerade Ihre gesendeten Antworten. Änderungen sind bis ${germanTime(until)} möglich.`,
    );

    const forged = await page(path(edit).replace(/sig=[^&]+/, "sig=forged"), "en");
    expect([forged.status, forged.language]).toEqual([403, "de"]);
    expect(forged.html).toContain("Dieser Link zum Ändern Ihrer Antworten ist ungültig.");
    const json = await fetch(`${server.url}${path(edit).replace(/sig=[^&]+/, "sig=forged")}`, {
      headers: { accept: "application/json" },
    });
    expect(json.status).toBe(403);
    expect(((await json.json()) as any).errors).toEqual([
      {
        code: "EDIT_LINK_INVALID",
        message:
          "Dieser Link zum Ändern Ihrer Antworten ist ungültig. Bitte verwenden Sie ihn genau so, wie er Ihnen gesendet wurde.",
      },
    ]);
  });

  test("Japanese: a second answer's offer of the edit link, and the page and JSON that answer the request", async () => {
    const id = await newForm({ locale: "ja", oneResponsePerEmail: true, editableDays: 7 });
    expect((await browserPost(`/f/${id}`, { name: "Ada", email: "ada@example.com" })).status).toBe(303);
    const offer = await browserPost(`/f/${id}`, { name: "Ada", email: "ada@example.com" });
    expect([offer.status, offer.language]).toEqual([409, "ja"]);
    expect(offer.html).toContain("<title>未送信 · Contact us</title>");
    expect(offer.html).toContain("<h1>フォームは送信されませんでした</h1>");
    expect(offer.html).toContain("代わりに、送信済みの回答を変更できます。");
    expect(offer.html).toContain("<label>メールアドレス <input");
    expect(offer.html).toContain(">変更用リンクをメールで受け取る</button>");
    expect(offer.html).not.toContain("Email me");

    const asked = await browserPost(`/f/${id}/edit-link`, { email: "ada@example.com" });
    expect([asked.status, asked.language]).toEqual([200, "ja"]);
    expect(asked.html).toContain("<h1>メールをご確認ください</h1>");
    const json = await fetch(`${server.url}/f/${id}/edit-link`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ email: "nobody@example.com" }),
    });
    expect(await json.json()).toEqual({
      ok: true,
      message:
        "このアドレスからこのフォームへの回答がある場合は、その回答を変更するためのリンクをお送りしました（1時間に1通まで）。",
    });
  });
});

import { primaryLanguage } from "../submissions/meta";
import { LANGUAGES, type Language, type Locale } from "./languages";
import de from "./locales/de.json" with { type: "json" };
import en from "./locales/en.json" with { type: "json" };
import es from "./locales/es.json" with { type: "json" };
import fr from "./locales/fr.json" with { type: "json" };
import it from "./locales/it.json" with { type: "json" };
import ja from "./locales/ja.json" with { type: "json" };
import nl from "./locales/nl.json" with { type: "json" };
import pl from "./locales/pl.json" with { type: "json" };
import pt from "./locales/pt.json" with { type: "json" };

export type { Language, Locale };
export type TextKey = keyof typeof en;
type Entry = string | Partial<Record<Intl.LDMLPluralRule, string>>;

/**
 * The languages a visitor reads formsvc's own texts in: one catalogue each (locales/*.json, imported
 * so the binary carries them), English the reference every other must match key for key
 * (test/dropin/locale.test.ts). A text is a string with `{placeholders}`, or by plural category
 * (`one`, `few`, `many`, `other`: Intl.PluralRules) where it counts something.
 */
export const CATALOGUES: Record<Language, Record<TextKey, Entry>> = { en, de, fr, es, pt, it, nl, pl, ja };

const KNOWN: ReadonlySet<string> = new Set(LANGUAGES);

/** The language of a form's pages and messages: its setting, else the visitor's best-weighted language we have, else English. */
export function languageFor(locale: Locale | undefined, acceptLanguage: string | null): Language {
  if (locale && locale !== "auto") return locale;
  return (primaryLanguage(acceptLanguage, KNOWN) as Language | null) ?? "en";
}

/** The texts of a form's page as `request` asks it: the form's setting, else the request's Accept-Language (`languageFor`). */
export const textsFor = (form: { locale: Locale } | null | undefined, request: Request): Texts =>
  textsOf(languageFor(form?.locale, request.headers.get("accept-language")));

export type Vars = Record<string, string | number>;

/** One language's texts: `t(key, vars)` fills a text's placeholders (a plural text picks its form by `vars.count`). */
export interface Texts {
  lang: Language;
  t(key: TextKey, vars?: Vars): string;
  /** A value as this language quotes it in a message (`"Email"`, „E-Mail“, 「メール」). */
  quote(text: string): string;
  /** A moment as this language writes it, in UTC and saying so: the page cannot know the visitor's zone. */
  time(iso: string): string;
}

const fill = (text: string, vars: Vars | undefined) =>
  vars ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole)) : text;

const made = new Map<Language, Texts>();

export function textsOf(lang: Language): Texts {
  let texts = made.get(lang);
  if (!texts) {
    const catalogue = CATALOGUES[lang];
    const plural = new Intl.PluralRules(lang);
    const t = (key: TextKey, vars?: Vars) => {
      const entry = catalogue[key];
      const text = typeof entry === "string" ? entry : (entry[plural.select(Number(vars?.count))] ?? entry.other!);
      return fill(text, vars);
    };
    const clock = new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" });
    texts = { lang, t, quote: (text) => t("quote", { text }), time: (iso) => `${clock.format(new Date(iso))} UTC` };
    made.set(lang, texts);
  }
  return texts;
}

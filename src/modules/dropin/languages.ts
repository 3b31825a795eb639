/**
 * The languages formsvc's own texts for visitors are written in (locales/*.json), apart from the
 * catalogues so the dashboard can list them without carrying the texts.
 */
export const LANGUAGES = ["en", "de", "fr", "es", "pt", "it", "nl", "pl", "ja"] as const;
export type Language = (typeof LANGUAGES)[number];
/** The form setting: a language, or `auto` (the visitor's Accept-Language). */
export const LOCALES = ["auto", ...LANGUAGES] as const;
export type Locale = (typeof LOCALES)[number];
/** Each language by its own name, as a visitor looking for theirs would read it. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  pt: "Português",
  it: "Italiano",
  nl: "Nederlands",
  pl: "Polski",
  ja: "日本語",
};

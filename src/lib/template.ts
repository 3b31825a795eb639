import type MustacheModule from "mustache";

/** HTML-escapes text for an element's content or an attribute value. */
export const escapeHtml = (s: string) =>
  s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");

/** A value as a person reads it: text as it is (a `shown` value as its text, a list of them joined), anything else as JSON. */
export const display = (v: unknown): string =>
  typeof v === "string" || v instanceof String
    ? String(v)
    : typeof v === "number" || typeof v === "boolean"
      ? String(v)
      : Array.isArray(v) && v.length > 0 && v.every((x) => x instanceof String)
        ? v.join(", ")
        : JSON.stringify(v);

/** A template value printed whole as `text` (`{{cv}}`) whose members a section still names (`{{#cv}}{{url}}{{/cv}}`). */
export const shown = (text: string, members: Record<string, unknown>): String =>
  Object.assign(new String(text), members);

type Lookup = { lookup(name: string): unknown };

/**
 * A Mustache writer whose every piece goes through `escape`: the template's own text (`text`) and
 * the values, `{{x}}` and `{{{x}}}` / `{{&x}}` alike, so no placeholder can opt out of escaping.
 */
function writer(escapeText: (s: string) => string, escapeValue: (s: string) => string): MustacheModule.Writer {
  // Loaded on first use: a server whose forms have no autoresponse never pays for it.
  const Mustache = require("mustache") as typeof MustacheModule;
  const w = new Mustache.Writer();
  const value = (token: string[], context: Lookup) => {
    const v = context.lookup(token[1]!);
    return v == null ? undefined : escapeValue(display(v));
  };
  Object.assign(w, {
    rawValue: (token: string[]) => escapeText(token[1]!),
    escapedValue: value,
    unescapedValue: value,
  });
  return w;
}

const own = (value: unknown, name: string): boolean =>
  value !== null && typeof value === "object" && Object.hasOwn(value, name);

/**
 * A Mustache context that finds a submission's own fields only. Mustache's looks names up with `in`
 * and caches them on a plain object, so `{{constructor}}` printed Object.prototype's function in a
 * submission without such a field, and a field named `hasOwnProperty` broke its cache.
 */
function ownFieldsContext(Mustache: typeof MustacheModule) {
  return class OwnFieldsContext extends Mustache.Context {
    override push(view: unknown): MustacheModule.Context {
      return new OwnFieldsContext(view, this);
    }
    override lookup(name: string): unknown {
      if (name === ".") return this.view;
      const [first = "", ...rest] = name.split(".");
      for (let context: MustacheModule.Context | undefined = this; context; context = context.parent) {
        if (!own(context.view, first)) continue;
        let value: unknown = context.view[first];
        for (const key of rest) value = own(value, key) ? (value as Record<string, unknown>)[key] : undefined;
        return value;
      }
      return undefined;
    }
  };
}

let writers:
  | { plain: MustacheModule.Writer; html: MustacheModule.Writer; Context: ReturnType<typeof ownFieldsContext> }
  | undefined;
const use = () =>
  (writers ??= {
    plain: writer(
      (s) => s,
      (s) => s,
    ),
    html: writer(escapeHtml, escapeHtml),
    Context: ownFieldsContext(require("mustache")),
  });

/** Throws with Mustache's message when `template` does not parse (an unclosed tag or section). */
export function checkTemplate(template: string): void {
  use().plain.parse(template);
}

/** `{{field}}` placeholders filled from `view` as plain text: no escaping (a text part, a subject). */
export const renderText = (template: string, view: Record<string, unknown>) =>
  use().plain.render(template, new (use().Context)(view), {});

/** The same template as HTML: its own text and every value HTML-escaped, whatever the placeholder's form. */
export const renderHtml = (template: string, view: Record<string, unknown>) =>
  use().html.render(template, new (use().Context)(view), {});

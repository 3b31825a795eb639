import { normalizeEmail } from "../../lib/email";
import type { Form } from "../forms/model";

/** Why a rule filed a submission as spam, as its `spam.reasons` name it. */
export type RuleReason = "blocked-word" | "blocked-email-domain" | "disposable-email" | "too-many-links";

const LINK = /\bhttps?:\/\/|\bwww\./giu;

/** Every string value of the fields (nested ones too), `_meta` left out. */
export function textsOf(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (typeof v === "string") out.push(v);
    else if (depth < 8 && Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (depth < 8 && v !== null && typeof v === "object") for (const x of Object.values(v)) walk(x, depth + 1);
  };
  for (const [k, v] of Object.entries(data)) if (k !== "_meta") walk(v, 0);
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// One pattern per list of blocked words, made once per list (forms are cached, and so their lists).
const patterns = new WeakMap<string[], RegExp>();

/** The blocked words as one pattern: whole words (no letter or digit either side), any case, a phrase's spaces any whitespace. */
function blockedPattern(words: string[]): RegExp {
  let re = patterns.get(words);
  if (!re) {
    const alternatives = words.map((w) => escape(w).replace(/\s+/g, "\\s+"));
    re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}_])`, "iu");
    patterns.set(words, re);
  }
  return re;
}

let disposable: Set<string> | undefined;
/** mailchecker's list of throwaway-mail domains, loaded the first time a form asks (it is large). */
function disposableDomains(): Set<string> {
  disposable ??= (require("mailchecker/platform/node") as { blacklist(): Set<string> }).blacklist();
  return disposable;
}

/** Whether `domain` is one of `domains`, or under one of them. */
function within(domain: string, has: (d: string) => boolean): boolean {
  for (let d = domain; ;) {
    if (has(d)) return true;
    const dot = d.indexOf(".");
    if (dot === -1) return false;
    d = d.slice(dot + 1);
  }
}

/** The domains of every email address among the fields' values. */
function emailDomains(texts: string[]): string[] {
  const out: string[] = [];
  for (const t of texts) {
    if (!t.includes("@") || t.length > 320) continue;
    const email = normalizeEmail(t);
    if (email) out.push(email.slice(email.lastIndexOf("@") + 1));
  }
  return out;
}

/** The form's spam rules that a submission's fields break, each once; the fields are read only when the form has a rule. */
export function ruleReasons(form: Form, data: Record<string, unknown>): RuleReason[] {
  const reasons: RuleReason[] = [];
  if (
    !form.blockedWords.length &&
    !form.blockedEmailDomains.length &&
    !form.blockDisposableEmail &&
    form.maxLinks === null
  )
    return reasons;
  const texts = textsOf(data);
  if (form.blockedWords.length) {
    const re = blockedPattern(form.blockedWords);
    if (texts.some((t) => re.test(t))) reasons.push("blocked-word");
  }
  if (form.blockedEmailDomains.length || form.blockDisposableEmail) {
    const domains = emailDomains(texts);
    const blocked = new Set(form.blockedEmailDomains);
    if (blocked.size && domains.some((d) => within(d, (x) => blocked.has(x)))) reasons.push("blocked-email-domain");
    if (form.blockDisposableEmail && domains.some((d) => within(d, (x) => disposableDomains().has(x))))
      reasons.push("disposable-email");
  }
  if (form.maxLinks !== null) {
    let links = 0;
    for (const t of texts) links += t.match(LINK)?.length ?? 0;
    if (links > form.maxLinks) reasons.push("too-many-links");
  }
  return reasons;
}

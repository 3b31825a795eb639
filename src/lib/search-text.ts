/**
 * The words search finds, cut from text once, here, for both engines: SQLite's FTS5 and
 * PostgreSQL's tsvector index exactly these tokens (db/full-text.ts), so a query finds the same
 * submissions on each, and neither engine's own idea of a word (locale, Unicode version, stemming)
 * comes into it.
 *
 * Text is cut into words by `Intl.Segmenter` (Unicode's word boundaries, with dictionaries for
 * scripts written without spaces: Japanese, Chinese, Thai), each word folded (compatibility forms
 * decomposed, Latin, Greek and Cyrillic accents dropped, lower case), and split into runs of
 * letters, digits and marks: "e-mail" and "example.com" are two tokens each, found as a phrase.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

// The combining accents of the Latin, Greek and Cyrillic scripts, dropped after decomposition; other
// scripts' marks (Japanese voicing, Thai vowels, Devanagari signs) are part of their letters and stay.
const ACCENTS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
// Letters that are no base letter plus an accent, so decomposition leaves them: folded as a reader would type them.
const LETTERS: Record<string, string> = { ß: "ss", ø: "o", ł: "l", đ: "d", ð: "d", æ: "ae", œ: "oe", ı: "i", þ: "th" };
const UNFOLDED = /[ßøłđðæœıþ]/g;
const RUN = /[\p{L}\p{N}\p{M}]+/gu;

/** Tokens longer than this are not indexed (encoded data, not words; PostgreSQL's lexemes are bounded too). */
export const MAX_TOKEN_LENGTH = 64;

/** A word folded as search compares it. */
export const fold = (word: string): string =>
  word
    .normalize("NFKD")
    .replace(ACCENTS, "")
    .normalize("NFC")
    .toLowerCase()
    .replace(UNFOLDED, (c) => LETTERS[c]!);

/** One token of a text, with where the word it came from stands in that text (UTF-16 offsets). */
export interface Token {
  token: string;
  start: number;
  end: number;
}

/**
 * The most tokens cut from one text: no submission has more indexed (search/document.ts), and the
 * segmenter is slow on long unspaced text (about 0.7 µs a character), so it stops there.
 */
export const MAX_TEXT_TOKENS = 10_000;

/** The tokens of `text`, in order (its first MAX_TEXT_TOKENS). */
export function tokensOf(text: string): Token[] {
  const out: Token[] = [];
  for (const s of segmenter.segment(text)) {
    if (!s.isWordLike) continue;
    for (const [token] of fold(s.segment).matchAll(RUN))
      if (token.length <= MAX_TOKEN_LENGTH) out.push({ token, start: s.index, end: s.index + s.segment.length });
    if (out.length >= MAX_TEXT_TOKENS) return out.slice(0, MAX_TEXT_TOKENS);
  }
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_RUN = /[a-z0-9]+/g;
// Letters, marks, punctuation and spaces: text the segmenter cuts only where the runs of its folded letters end.
const PLAIN = /^[\x00-\x7f\p{L}\p{M}\p{P}\p{Z}]*$/u;
// Scripts written without spaces between words: they need the segmenter's dictionaries.
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

const short = (runs: string[]) =>
  runs.some((r) => r.length > MAX_TOKEN_LENGTH) ? runs.filter((r) => r.length <= MAX_TOKEN_LENGTH) : runs;

/**
 * Just the tokens of `text`. Letters of spaced scripts take a shortcut to the same tokens: Unicode's
 * word boundaries never fall inside a run of letters, digits and marks there, so the runs of the
 * folded text are the tokens (and folding ASCII is lowering its case). Most submissions are such
 * text, and cutting them is the index's share of a submit.
 */
export function wordsOf(text: string): string[] {
  if (ASCII.test(text)) return short(text.toLowerCase().match(ASCII_RUN) ?? []);
  if (PLAIN.test(text) && !UNSPACED.test(text)) return short(fold(text).match(RUN) ?? []);
  return tokensOf(text).map((t) => t.token);
}

/**
 * The token each submission's form adds to its document, which no text yields (a private-use
 * character starts it): a search within a few forms asks the index for their tokens too, so it
 * reads only their submissions' matches, not those of every form on the instance (db/full-text.ts).
 */
export const formToken = (formId: string): string => `\ue000${formId.toLowerCase().replace(/[^a-z0-9]/g, "")}`;

/**
 * A field's key as search names it: its tokens run together ("E-Mail" is `email`, "first_name"
 * `firstname`), so `email:…` finds the field whichever way its key is spelt.
 */
export const fieldName = (key: string): string => wordsOf(key).join("");

/**
 * One term of a query (modules/search/query.ts): tokens that must stand next to each other in that
 * order (one token for a word), the last one maybe a prefix, in one field or any; or, negated,
 * tokens that must not.
 */
export interface Term {
  tokens: string[];
  prefix: boolean;
  field: string | null;
  negated: boolean;
}

/** A query as the index is asked it: every positive term matches, no negated one does. */
export interface SearchQuery {
  terms: Term[];
}

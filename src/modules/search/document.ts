import {
  fieldName,
  MAX_TEXT_TOKENS,
  MAX_TOKEN_LENGTH,
  tokensOf,
  wordsOf,
  type SearchQuery,
  type Term,
  type Token,
} from "../../lib/search-text";

/**
 * The most tokens of one submission that are indexed: PostgreSQL numbers a tsvector's positions up
 * to 16,383. One text's are cut at the same count (search-text.ts `tokensOf`).
 */
export const MAX_DOCUMENT_TOKENS = MAX_TEXT_TOKENS;

/** What the index holds of one submission, its tokens in order, each with the name of the field it came from. */
export interface SearchDocument {
  tokens: string[];
  fields: string[];
}

/** The texts of one field's value, in order: strings and numbers, however deep in arrays and objects. */
function textsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "bigint") out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) textsOf(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) textsOf(v, out);
  return out;
}

/**
 * The field a submission's notes are searched in, after its data's: `notes:word` finds a word in
 * them (or in a field of that name), and a note's highlight names it.
 */
export const NOTES = "notes";

/** A note as search reads it. */
export interface NoteText {
  id: string;
  text: string;
}

/**
 * The fields search reads of a submission, with their texts: every one of its data but `_meta`, in
 * the data's order, then its notes (oldest first).
 */
export function searchedFields(
  data: Record<string, unknown>,
  notes: NoteText[] = [],
): [key: string, texts: string[]][] {
  const fields = Object.entries(data)
    .filter(([key]) => key !== "_meta")
    .map(([key, value]): [string, string[]] => [key, textsOf(value)]);
  if (notes.length) fields.push([NOTES, notes.map((n) => n.text)]);
  return fields;
}

/** The tokens the index holds of a submission (documentOf's, without their fields): what a submit pays for. */
export function indexedTokens(fields: [key: string, texts: string[]][]): string[] {
  const tokens: string[] = [];
  for (const [, texts] of fields) for (const text of texts) for (const token of wordsOf(text)) tokens.push(token);
  return tokens.length > MAX_DOCUMENT_TOKENS ? tokens.slice(0, MAX_DOCUMENT_TOKENS) : tokens;
}

// Text FTS5's `ascii` tokenizer cuts as `wordsOf` does, and a token too long to index.
const PLAIN_ASCII = /^[\x00-\x7f]*$/;
const LONG_TOKEN = new RegExp(`[A-Za-z0-9]{${MAX_TOKEN_LENGTH + 1}}`);

/**
 * The tokens the index holds of a submission (`indexedTokens`'s) as one text that FTS5's `ascii`
 * tokenizer cuts into exactly them (db/full-text.ts): ASCII text as it is, since that tokenizer
 * splits it at the same places and lowers its case as `wordsOf` does, with no token strings made
 * (cutting them and collecting them were about a third of what the index cost a submit,
 * bench/RESULTS.md); any other text as its tokens, spaced.
 */
export function indexedText(fields: [key: string, texts: string[]][]): string {
  const parts: string[] = [];
  // How many tokens there may be: a text of n characters holds at most ⌈n/2⌉.
  let most = 0;
  for (const [, texts] of fields)
    for (const text of texts)
      if (PLAIN_ASCII.test(text) && !LONG_TOKEN.test(text)) {
        parts.push(text);
        most += Math.ceil(text.length / 2);
      } else {
        const words = wordsOf(text);
        parts.push(words.join(" "));
        most += words.length;
      }
  return most > MAX_DOCUMENT_TOKENS ? indexedTokens(fields).join(" ") : parts.join(" ");
}

/**
 * The indexed document of a submission, a function of its fields alone: whatever else is found
 * with it (its notes) is more fields here, and the submission indexed again when that changes
 * (repo.ts `reindex`).
 */
export function documentOf(fields: [key: string, texts: string[]][]): SearchDocument {
  const doc: SearchDocument = { tokens: [], fields: [] };
  for (const [key, texts] of fields) {
    const name = fieldName(key);
    for (const text of texts)
      for (const token of wordsOf(text)) {
        if (doc.tokens.length === MAX_DOCUMENT_TOKENS) return doc;
        doc.tokens.push(token);
        doc.fields.push(name);
      }
  }
  return doc;
}

const matchesToken = (term: Term, i: number, token: string) =>
  term.prefix && i === term.tokens.length - 1 ? token.startsWith(term.tokens[i]!) : token === term.tokens[i];

/** Whether `term`'s tokens stand at `at` in the document, in its field if it names one. */
const standsAt = (doc: SearchDocument, term: Term, at: number) =>
  term.tokens.every(
    (_, i) => (term.field === null || doc.fields[at + i] === term.field) && matchesToken(term, i, doc.tokens[at + i]!),
  );

/**
 * Whether a document matches the query, as the index would match it: every positive term stands in
 * it (in its field, if it names one), no negated one does. On the same tokens and positions as the
 * index's: for a submission not indexed yet, and for the index's matches of a field's terms, which
 * it found anywhere.
 */
export function matches(doc: SearchDocument, query: SearchQuery): boolean {
  for (const term of query.terms) {
    let found = false;
    for (let at = 0; !found && at + term.tokens.length <= doc.tokens.length; at++) found = standsAt(doc, term, at);
    if (found === term.negated) return false;
  }
  return true;
}

/** A submission's document, from its data as JSON text and its notes. */
export const documentOfJson = (json: string, notes?: NoteText[]) =>
  documentOf(searchedFields(JSON.parse(json) as Record<string, unknown>, notes));

/** The tokens the index holds of a submission, from its data as JSON text and its notes. */
export const tokensOfJson = (json: string, notes?: NoteText[]) =>
  indexedTokens(searchedFields(JSON.parse(json) as Record<string, unknown>, notes));

/** The same as one text for FTS5 (`indexedText`). */
export const indexedTextOfJson = (json: string, notes?: NoteText[]) =>
  indexedText(searchedFields(JSON.parse(json) as Record<string, unknown>, notes));

/**
 * A fragment of one field's text where the query matched: `text` is the value (or, for a long one,
 * a window of it around the first match, cut at `…`), `matches` the [start, end) UTF-16 offsets of
 * each matched word in `text`: marked by the client as it wishes, with no markup to escape. A
 * note's fragment has the field `notes` and the note's id.
 */
export interface Highlight {
  field: string;
  note?: string;
  text: string;
  matches: [number, number][];
}

const MAX_HIGHLIGHTS = 5;
const SHORT_TEXT = 200;
const BEFORE = 60;
const WINDOW = 200;

/** Where each positive term of `query` stands in one text's tokens: the [start, end) of each run matched. */
function matchedSpans(query: SearchQuery, field: string, tokens: Token[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const term of query.terms) {
    if (term.negated || (term.field !== null && term.field !== field)) continue;
    for (let at = 0; at + term.tokens.length <= tokens.length; at++)
      if (term.tokens.every((_, i) => matchesToken(term, i, tokens[at + i]!.token)))
        for (let i = 0; i < term.tokens.length; i++) spans.push([tokens[at + i]!.start, tokens[at + i]!.end]);
  }
  // Sorted, and the tokens of one word (or one word matched twice) marked once.
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return spans.filter((s, i) => i === 0 || s[0] >= spans[i - 1]![1]);
}

// Highlights are looked for in a text's first characters: a page's are cut from up to 100 submissions' texts.
const HIGHLIGHTED_CHARS = 10_000;

/** The fragment of one text that `query` matched, if it did. */
function fragmentOf(query: SearchQuery, key: string, text: string): Omit<Highlight, "note"> | null {
  const spans = matchedSpans(query, fieldName(key), tokensOf(text.slice(0, HIGHLIGHTED_CHARS)));
  if (spans.length === 0) return null;
  if (text.length <= SHORT_TEXT) return { field: key, text, matches: spans };
  const from = Math.max(0, spans[0]![0] - BEFORE);
  const to = Math.min(text.length, from + WINDOW);
  const lead = from > 0 ? "…" : "";
  return {
    field: key,
    text: `${lead}${text.slice(from, to)}${to < text.length ? "…" : ""}`,
    matches: spans
      .filter(([, end]) => end <= to)
      .map(([start, end]): [number, number] => [start - from + lead.length, end - from + lead.length]),
  };
}

/** The fragments of a submission's fields, then of its notes, that `query` matched, in their order (at most 5). */
export function highlightsOf(data: Record<string, unknown>, query: SearchQuery, notes: NoteText[] = []): Highlight[] {
  const out: Highlight[] = [];
  for (const [key, texts] of searchedFields(data))
    for (const text of texts) {
      const fragment = fragmentOf(query, key, text);
      if (fragment && out.push(fragment) === MAX_HIGHLIGHTS) return out;
    }
  for (const note of notes) {
    const fragment = fragmentOf(query, NOTES, note.text);
    if (
      fragment &&
      out.push({ field: NOTES, note: note.id, text: fragment.text, matches: fragment.matches }) === MAX_HIGHLIGHTS
    )
      return out;
  }
  return out;
}

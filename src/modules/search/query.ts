import { AppError } from "../../lib/errors";
import { fieldName, wordsOf, type SearchQuery, type Term } from "../../lib/search-text";

/** The longest `q` taken. */
export const MAX_QUERY_LENGTH = 500;
/** The most terms a query may have, and tokens in all its terms: each is a lookup in the index. */
export const MAX_TERMS = 16;
export const MAX_QUERY_TOKENS = 32;
/**
 * The shortest prefix (`ab*`) and the most prefixes in one query: the index keeps entries of its own
 * for prefixes of 2 and 3 letters (migration 36), and a short prefix matches much of it.
 */
export const MIN_PREFIX_LENGTH = 2;
export const MAX_PREFIXES = 3;

const bad = (message: string) => new AppError("INVALID_QUERY", message);

// A term: `-`? then `field:`? then a quoted phrase or a bare word (to the next space or quote).
const TERM = /(-?)(?:([^\s":]+):)?(?:"([^"]*)("?)|([^\s"]+))/y;

/**
 * The query language: words (each must match), `foo*` a prefix, `"two words"` a phrase, `-word`
 * or `-"a phrase"` excluded, `field:value` (or `field:"a phrase"`, `field:foo*`) in that field
 * alone. Case and accents do not count; a word that is several tokens ("e-mail", "東京都") is a
 * phrase of them. Anything else is a word: FTS5's and tsquery's operators (`NEAR`, `^`, `|`, `:`
 * in a column filter) mean nothing here, since no user text reaches either engine's syntax but
 * these tokens. A 400 INVALID_QUERY for what cannot be searched: no words, only exclusions, an
 * unclosed quote, too long, too many terms, a prefix of one letter, too many prefixes.
 */
export function parseQuery(q: string): SearchQuery {
  if (q.length > MAX_QUERY_LENGTH) throw bad(`q is longer than ${MAX_QUERY_LENGTH} characters`);
  const terms: Term[] = [];
  for (let i = 0; i < q.length;) {
    if (/\s/.test(q[i]!)) {
      i += 1;
      continue;
    }
    TERM.lastIndex = i;
    const m = TERM.exec(q);
    // Only a lone `"`: TERM takes everything else.
    if (!m) throw bad("q has a quote that is never closed");
    i = TERM.lastIndex;
    const [, minus, field, phrase, closed, bare] = m;
    if (phrase !== undefined && closed !== '"') throw bad("q has a quote that is never closed");
    const text = phrase ?? bare!;
    const prefix = phrase === undefined && text.endsWith("*") ? true : phrase !== undefined && q[i] === "*";
    if (phrase !== undefined && prefix) i += 1;
    const tokens = wordsOf(text);
    if (tokens.length === 0) {
      if (field !== undefined) throw bad(`${field}: needs a word to search the field for`);
      continue;
    }
    if (prefix && tokens[tokens.length - 1]!.length < MIN_PREFIX_LENGTH)
      throw bad(`a prefix needs at least ${MIN_PREFIX_LENGTH} letters before its *`);
    const name = field === undefined ? null : fieldName(field);
    if (name === "") throw bad(`"${field}" names no field`);
    terms.push({ tokens, prefix, field: name, negated: minus === "-" });
  }
  if (terms.length === 0) throw bad("q has no words to search for");
  if (terms.every((t) => t.negated)) throw bad("q only excludes words: give at least one to find");
  if (terms.length > MAX_TERMS) throw bad(`q has more than ${MAX_TERMS} terms`);
  if (terms.filter((t) => t.prefix).length > MAX_PREFIXES) throw bad(`q has more than ${MAX_PREFIXES} prefixes`);
  if (terms.reduce((n, t) => n + t.tokens.length, 0) > MAX_QUERY_TOKENS)
    throw bad(`q has more than ${MAX_QUERY_TOKENS} words`);
  return { terms };
}

import { expect, test } from "bun:test";
import { fieldName, fold, MAX_TEXT_TOKENS, tokensOf, wordsOf } from "../../src/lib/search-text";

test("words are folded: case, accents, compatibility forms and letters such as ß", () => {
  expect(wordsOf("Hans MÜLLER, Große Straße; Ｆｕｌｌ ﬁne Łódź Ørsted")).toEqual([
    "hans",
    "muller",
    "grosse",
    "strasse",
    "full",
    "fine",
    "lodz",
    "orsted",
  ]);
  expect(fold("Crème Brûlée")).toBe("creme brulee");
  // Other scripts' marks are part of their letters.
  expect(wordsOf("で")).toEqual(["で"]);
});

test("text written without spaces is cut into words; punctuation inside a word cuts it into tokens", () => {
  expect(wordsOf("東京都に住んでいます")).toEqual(["東京", "都", "に", "住", "んで", "い", "ます"]);
  expect(wordsOf("hans@example.com e-mail 3.14 first_name")).toEqual([
    "hans",
    "example",
    "com",
    "e",
    "mail",
    "3",
    "14",
    "first",
    "name",
  ]);
  expect(wordsOf(`short ${"x".repeat(65)} kept`)).toEqual(["short", "kept"]);
  expect(fieldName("E-Mail Address")).toBe("emailaddress");
});

test("the shortcuts for spaced scripts give the segmenter's tokens", () => {
  for (const text of [
    "Plain ASCII text, with punctuation: don't stop! 42nd street_name x.y.z",
    "Zoë Saldaña naïve café résumé ĳssel Ǆemal ŉ",
    "Привет, мир! Ελληνικά κείμενα. עברית טקסט. العربية",
    "한국어 텍스트 와 숫자 123",
    "mixed Müller 10€ ½ ² ﬀ",
  ])
    expect({ text, tokens: wordsOf(text) }).toEqual({ text, tokens: tokensOf(text).map((t) => t.token) });
});

test("a long text written without spaces is cut up to MAX_TEXT_TOKENS tokens, no further", () => {
  const text = "東京都に住んでいます".repeat(5_000);
  const tokens = tokensOf(text);
  expect(tokens).toHaveLength(MAX_TEXT_TOKENS);
  expect(tokens.slice(0, 7).map((t) => t.token)).toEqual(["東京", "都", "に", "住", "んで", "い", "ます"]);
  expect(wordsOf(text)).toHaveLength(MAX_TEXT_TOKENS);
});

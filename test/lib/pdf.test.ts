import { describe, expect, test } from "bun:test";
import jpRanges from "@fontsource/noto-sans-jp/unicode.json" with { type: "json" };
import { FONT_FILES, fontFor } from "../../src/lib/pdf/fonts";
import { JP_FILES } from "../../src/lib/pdf/jp-files";

describe("the PDF's fonts", () => {
  test("jp-files.ts imports each subset @fontsource/noto-sans-jp lists, by its number", () => {
    const numbered = Object.keys(jpRanges).filter((k) => /^\[\d+\]$/.test(k));
    expect(JP_FILES.length).toBe(numbered.length);
    JP_FILES.forEach((path, i) => expect(path).toEndWith(`noto-sans-jp-${i}-400-normal.woff`));
    expect(FONT_FILES.every((f) => f.ranges.length > 0 && f.ranges.every(([a, b]) => a <= b))).toBe(true);
  });

  test("every kana, the common punctuation of Japanese and the Jōyō kanji sampled have a font; Arabic, Hebrew and emoji do not", async () => {
    const covered = async (from: number, to: number) => {
      const missing: string[] = [];
      for (let cp = from; cp <= to; cp++) if (!(await fontFor(cp))) missing.push(cp.toString(16));
      return missing;
    };
    expect(await covered(0x3041, 0x3096)).toEqual([]); // hiragana
    expect(await covered(0x30a1, 0x30fa)).toEqual([]); // katakana
    expect(await covered(0x3001, 0x3002)).toEqual([]); // 、。
    for (const ch of "日本語漢字東京都渋谷区山田太郎愛") expect(await fontFor(ch.codePointAt(0)!)).not.toBeNull();
    for (const ch of ["ا", "ש", "😀"]) expect(await fontFor(ch.codePointAt(0)!)).toBeNull();
  });
});

import { inflateSync } from "node:zlib";
import fontkit from "@pdf-lib/fontkit";
import jpRanges from "@fontsource/noto-sans-jp/unicode.json" with { type: "json" };
import sansRanges from "@fontsource/noto-sans/unicode.json" with { type: "json" };
// A file import yields a path: into node_modules from a checkout, under /$bunfs/ inside the compiled
// binary, which embeds the file. WOFF, not WOFF2: @pdf-lib/fontkit subsets WOFF, and throws on WOFF2.
import latin from "@fontsource/noto-sans/files/noto-sans-latin-400-normal.woff" with { type: "file" };
import latinExt from "@fontsource/noto-sans/files/noto-sans-latin-ext-400-normal.woff" with { type: "file" };
import cyrillic from "@fontsource/noto-sans/files/noto-sans-cyrillic-400-normal.woff" with { type: "file" };
import cyrillicExt from "@fontsource/noto-sans/files/noto-sans-cyrillic-ext-400-normal.woff" with { type: "file" };
import greek from "@fontsource/noto-sans/files/noto-sans-greek-400-normal.woff" with { type: "file" };
import greekExt from "@fontsource/noto-sans/files/noto-sans-greek-ext-400-normal.woff" with { type: "file" };
import vietnamese from "@fontsource/noto-sans/files/noto-sans-vietnamese-400-normal.woff" with { type: "file" };
import { JP_FILES } from "./jp-files";

/** A font as fontkit reads it: what the layout asks of it. */
export interface FontFace {
  unitsPerEm: number;
  hasGlyphForCodePoint(cp: number): boolean;
  glyphForCodePoint(cp: number): { advanceWidth: number };
}

/** One font file: the code points its unicode-range names, and its bytes and font once read. */
export interface FontFile {
  name: string;
  path: string;
  ranges: [number, number][];
  /** One of Noto Sans JP's subsets (the PDF draws a bounded number of their glyphs). */
  cjk?: true;
  bytes?: Uint8Array;
  face?: FontFace;
}

/** `U+0400-045F,U+2116` as [from, to] pairs. */
export function parseRanges(text: string): [number, number][] {
  return text.split(",").map((part) => {
    const [from, to] = part.trim().replace(/^U\+/i, "").split("-");
    return [parseInt(from!, 16), parseInt(to ?? from!, 16)];
  });
}

const sans = (name: keyof typeof sansRanges, path: string): FontFile => ({
  name: `noto-sans-${name}`,
  path,
  ranges: parseRanges(sansRanges[name]),
});

/**
 * Every font a PDF may use, in the order a character's font is chosen: Noto Sans (Latin, Cyrillic,
 * Greek, Vietnamese) first, then Noto Sans JP's 120 subsets (kana, CJK ideographs, full-width
 * forms). Scripts that need shaping or run right to left (Arabic, Hebrew, Devanagari, Thai) and
 * Hangul and emoji have no font here: pdf-lib lays text out left to right, glyph by glyph.
 */
export const FONT_FILES: readonly FontFile[] = [
  sans("latin", latin),
  sans("latin-ext", latinExt),
  sans("cyrillic", cyrillic),
  sans("cyrillic-ext", cyrillicExt),
  sans("greek", greek),
  sans("greek-ext", greekExt),
  sans("vietnamese", vietnamese),
  ...JP_FILES.map((path, i) => ({
    name: `noto-sans-jp-${i}`,
    path,
    cjk: true as const,
    ranges: parseRanges((jpRanges as Record<string, string>)[`[${i}]`] ?? ""),
  })),
];

/**
 * A WOFF file as the TrueType font it wraps: each table inflated, the table directory rebuilt.
 * fontkit reads WOFF itself, but inflates a whole table at every glyph it reads from it: a subset
 * of 2,000 ideographs took 9 s to write, and takes milliseconds from the TrueType font.
 */
export function woffToSfnt(woff: Uint8Array): Uint8Array {
  const src = new DataView(woff.buffer, woff.byteOffset, woff.byteLength);
  if (src.getUint32(0) !== 0x774f4646) throw new Error("not a WOFF file");
  const count = src.getUint16(12);
  const tables = Array.from({ length: count }, (_, i) => {
    const at = 44 + i * 20;
    const [offset, compLength, length] = [src.getUint32(at + 4), src.getUint32(at + 8), src.getUint32(at + 12)];
    const raw = woff.subarray(offset, offset + compLength);
    return {
      tag: src.getUint32(at),
      checksum: src.getUint32(at + 16),
      data: compLength < length ? new Uint8Array(inflateSync(raw)) : raw,
    };
  });
  const pad = (n: number) => (n + 3) & ~3;
  const size = tables.reduce((n, t) => n + pad(t.data.length), 12 + count * 16);
  const out = new Uint8Array(size);
  const dst = new DataView(out.buffer);
  const log2 = Math.floor(Math.log2(count));
  dst.setUint32(0, src.getUint32(4)); // the flavor: TrueType or CFF
  dst.setUint16(4, count);
  dst.setUint16(6, 16 * 2 ** log2);
  dst.setUint16(8, log2);
  dst.setUint16(10, count * 16 - 16 * 2 ** log2);
  let offset = 12 + count * 16;
  tables.forEach((t, i) => {
    const at = 12 + i * 16;
    dst.setUint32(at, t.tag);
    dst.setUint32(at + 4, t.checksum);
    dst.setUint32(at + 8, offset);
    dst.setUint32(at + 12, t.data.length);
    out.set(t.data, offset);
    offset += pad(t.data.length);
  });
  return out;
}

/** A file's bytes (as TrueType) and font, read on first use and kept (tens of KB each; a process reads those its PDFs need). */
export async function loadFont(file: FontFile): Promise<{ bytes: Uint8Array; face: FontFace }> {
  if (!file.bytes || !file.face) {
    const bytes = woffToSfnt(await Bun.file(file.path).bytes());
    file.face = fontkit.create(bytes) as unknown as FontFace;
    file.bytes = bytes;
  }
  return { bytes: file.bytes, face: file.face };
}

const inRanges = (cp: number, ranges: [number, number][]) => ranges.some(([a, b]) => cp >= a && cp <= b);

// The font chosen for each code point met, up to as many as a page of text in any script holds.
const chosen = new Map<number, FontFile | null>();
const MAX_CHOSEN = 20_000;

/** The first font that draws this code point (its unicode-range says it may, its cmap says it does), or null. */
export async function fontFor(cp: number): Promise<FontFile | null> {
  const known = chosen.get(cp);
  if (known !== undefined) return known;
  let found: FontFile | null = null;
  for (const file of FONT_FILES) {
    if (!inRanges(cp, file.ranges)) continue;
    const { face } = await loadFont(file);
    if (face.hasGlyphForCodePoint(cp)) {
      found = file;
      break;
    }
  }
  if (chosen.size < MAX_CHOSEN) chosen.set(cp, found);
  return found;
}

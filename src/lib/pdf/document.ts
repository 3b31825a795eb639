import fontkit from "@pdf-lib/fontkit";
import { PDFDocument, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { fontFor, loadFont, type FontFile } from "./fonts";

/** A document of labelled values: a title, lines under it, then each label with its (multi-line) value. */
export interface PdfInput {
  title: string;
  /** Lines under the title (when, which submission), smaller. */
  about: string[];
  entries: { label: string; value: string }[];
  /** The document's metadata title and its pages' footer. */
  footer: string;
}

/** What bounds a PDF's size and the time it takes, whatever a submission holds. */
export const PDF_LIMITS = {
  /** A value longer than this is cut, and says how much was left out. */
  valueChars: 20_000,
  /** The document stops at this page, and says so. */
  pages: 30,
  /**
   * It draws at most this many different characters of Noto Sans JP (Japanese prose of 30 pages
   * uses about 1,500); the others show as U+FFFD. Writing each font's subset takes its share of
   * pdf-lib's `save`: 17,000 different ideographs from 120 subsets took 2.5 s.
   */
  distinctChars: 3_000,
};

// The longest the layout runs before it lets other work in.
const SLICE_MS = 20;

/** What a character with no font shows: the replacement character, in Noto Sans. */
const MISSING = 0xfffd;
const PAGE = { width: 595.28, height: 841.89, margin: 50 }; // A4, in points
const SIZE = { title: 16, about: 9, label: 9, value: 11, footer: 8 };
const LEADING = 1.35;
const GREY = rgb(0.4, 0.4, 0.4);
const BLACK = rgb(0, 0, 0);
type Color = typeof GREY;

/** A character as drawn: the font that has it and its advance at the size it is set in. */
type Glyph = { c: string; file: FontFile; w: number };

/**
 * Writes a PDF of labelled values with embedded Noto Sans (subset to the glyphs used), each
 * character in the first font that has it (fonts.ts); a character none has shows as U+FFFD, and the
 * document says so at its end. Long values wrap at spaces (or anywhere, for text without them, as
 * Japanese is), line breaks are kept, pages follow as needed. Bounded: each value is cut at
 * `PDF_LIMITS.valueChars`, the document at `PDF_LIMITS.pages` and `PDF_LIMITS.distinctChars`, and
 * the work (layout, drawing, each font's subset) yields to the event loop every `SLICE_MS`: at its
 * limits a PDF takes about 3 s of one core, and other requests wait at most about 0.15 s at a time
 * (pdf-lib's final `save`, and the collector).
 */
export async function writePdf(input: PdfInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  doc.setTitle(input.footer);
  doc.setProducer("formsvc");
  doc.setCreator("formsvc");
  const embedded = new Map<FontFile, PDFFont>();
  const advances = new Map<string, number>();
  let missing = false;
  let tooMany = false;
  const drawn = new Set<number>();
  let slice = performance.now();

  /** Lets other work in once the layout has run for `SLICE_MS`. */
  async function breathe(): Promise<void> {
    if (performance.now() - slice < SLICE_MS) return;
    await new Promise((r) => setImmediate(r));
    slice = performance.now();
  }

  /** The text's characters with their fonts, at `size`; one without a font becomes U+FFFD. */
  async function glyphs(text: string, size: number): Promise<Glyph[]> {
    const out: Glyph[] = [];
    for (const ch of text) {
      if (out.length % 256 === 0) await breathe();
      let cp = ch.codePointAt(0)!;
      if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) cp = 0x20; // tabs and control characters: a space
      let file = await fontFor(cp);
      // Noto Sans's own few hundred glyphs always; Noto Sans JP's up to the limit.
      if (file?.cjk && !drawn.has(cp)) {
        if (drawn.size < PDF_LIMITS.distinctChars) drawn.add(cp);
        else [file, tooMany] = [null, true];
      }
      if (!file) {
        missing = true;
        cp = MISSING;
        file = (await fontFor(cp))!;
      }
      const key = `${file.name}:${cp}`;
      let advance = advances.get(key);
      if (advance === undefined) {
        const { face } = await loadFont(file);
        advance = face.glyphForCodePoint(cp).advanceWidth / face.unitsPerEm;
        advances.set(key, advance);
      }
      // Kerning is left out of the measure: it moves a line by less than the margin.
      out.push({ c: String.fromCodePoint(cp), file, w: advance * size });
    }
    return out;
  }

  /** One paragraph's characters as lines that fit `max` points: broken after a space where there is one, else anywhere. */
  function wrap(chars: Glyph[], max: number): Glyph[][] {
    const lines: Glyph[][] = [];
    let start = 0;
    while (start < chars.length) {
      let width = 0;
      let end = start;
      let lastSpace = -1;
      while (end < chars.length && (end === start || width + chars[end]!.w <= max)) {
        if (chars[end]!.c === " ") lastSpace = end;
        width += chars[end]!.w;
        end++;
      }
      if (end < chars.length && lastSpace > start) end = lastSpace + 1;
      lines.push(chars.slice(start, end));
      start = end;
    }
    return lines.length ? lines : [[]];
  }

  async function fontOf(file: FontFile): Promise<PDFFont> {
    let font = embedded.get(file);
    if (!font) {
      font = await doc.embedFont((await loadFont(file)).bytes, { subset: true });
      embedded.set(file, font);
    }
    return font;
  }

  /** Draws characters from (x, y), one drawText per run of one font. */
  async function draw(page: PDFPage, chars: Glyph[], x: number, y: number, size: number, color: Color) {
    for (let i = 0; i < chars.length;) {
      const file = chars[i]!.file;
      let text = "";
      let width = 0;
      for (; i < chars.length && chars[i]!.file === file; i++) {
        text += chars[i]!.c;
        width += chars[i]!.w;
      }
      page.drawText(text, { x, y, size, font: await fontOf(file), color });
      x += width;
      await breathe();
    }
  }

  const width = PAGE.width - 2 * PAGE.margin;
  const bottom = PAGE.margin + SIZE.footer * 2;
  let page: PDFPage | null = null;
  let y = 0;
  let cut = false;

  /** Draws one line at the cursor, on a new page when it does not fit; false (the document is cut) past the last page allowed. */
  async function line(chars: Glyph[], size: number, color: Color): Promise<boolean> {
    const height = size * LEADING;
    if (!page || y - height < bottom) {
      if (doc.getPageCount() >= PDF_LIMITS.pages) return !(cut = true);
      page = doc.addPage([PAGE.width, PAGE.height]);
      y = PAGE.height - PAGE.margin;
    }
    y -= height;
    await draw(page, chars, PAGE.margin, y, size, color);
    return true;
  }

  async function paragraph(text: string, size: number, color: Color = BLACK): Promise<boolean> {
    for (const part of text.split(/\r\n|\r|\n/))
      for (const l of wrap(await glyphs(part, size), width)) if (!(await line(l, size, color))) return false;
    return true;
  }

  async function write(): Promise<void> {
    if (!(await paragraph(input.title, SIZE.title))) return;
    for (const a of input.about) if (!(await paragraph(a, SIZE.about, GREY))) return;
    y -= SIZE.value;
    for (const { label, value } of input.entries) {
      if (!(await paragraph(label, SIZE.label, GREY))) return;
      const chars = [...value];
      const shown =
        chars.length > PDF_LIMITS.valueChars
          ? `${chars.slice(0, PDF_LIMITS.valueChars).join("")}… [${(chars.length - PDF_LIMITS.valueChars).toLocaleString("en")} more characters are not in this PDF]`
          : value;
      if (!(await paragraph(shown === "" ? "—" : shown, SIZE.value))) return;
      y -= SIZE.value * 0.6;
    }
    if (missing)
      await paragraph(
        tooMany
          ? `Characters shown as \uFFFD have no font in this PDF (such as Arabic, Hebrew, Devanagari, Thai, Korean or emoji), or come past the ${PDF_LIMITS.distinctChars.toLocaleString("en")} different Japanese characters it draws; the submission keeps them as sent.`
          : "Characters shown as \uFFFD have no font in this PDF (such as Arabic, Hebrew, Devanagari, Thai, Korean or emoji); the submission keeps them as sent.",
        SIZE.about,
        GREY,
      );
  }
  await write();

  // Footers last, once the page count is known; the last page's says when the document was cut.
  const pages = doc.getPages();
  for (const [i, p] of pages.entries()) {
    const ending =
      i === pages.length - 1 && cut ? ` · cut at ${PDF_LIMITS.pages} pages: the rest is in the dashboard` : "";
    const text = `${input.footer} · page ${i + 1} of ${pages.length}${ending}`;
    await draw(p, await glyphs(text, SIZE.footer), PAGE.margin, PAGE.margin / 2, SIZE.footer, GREY);
  }
  // pdf-lib writes every font's subset in one go at `save`; written here one font at a time instead,
  // with other work let in between (each is written once: `save` writes only what changed since).
  for (const font of embedded.values()) {
    await font.embed();
    await breathe();
  }
  return await doc.save();
}

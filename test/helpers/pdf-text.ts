/**
 * The text of a PDF that formsvc wrote, read back without a PDF text extractor: each page's content
 * streams (inflated by pdf-lib) give the glyph ids each `Tj` shows in which font, each font's
 * ToUnicode map turns them back into text, and each glyph is looked up in the font file embedded in
 * the PDF (read with fontkit): `blank` counts the characters (not spaces) whose embedded glyph has no
 * outline, `notdef` those drawn with glyph 0. Both 0 means every character is drawn by a glyph of an
 * embedded font, not a box. Lines: a new text position lower on the page starts a new line.
 */
import fontkit from "@pdf-lib/fontkit";
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  PDFRef,
  type PDFObject,
} from "pdf-lib";

export interface PdfText {
  pages: number;
  text: string;
  notdef: number;
  blank: number;
}

const latin1 = new TextDecoder("latin1");
const inflate = (s: PDFRawStream) => decodePDFRawStream(s).decode();

function toUnicode(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  const hex = (h: string) => String.fromCodePoint(...(h.match(/.{4}/g) ?? []).map((u) => parseInt(u, 16)));
  // UTF-16 in the map: pairs of surrogates come back as one code point through fromCharCode.
  const utf16 = (h: string) => String.fromCharCode(...(h.match(/.{4}/g) ?? []).map((u) => parseInt(u, 16)));
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g))
    for (const [, gid, u] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g))
      map.set(parseInt(gid!, 16), utf16(u!));
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g))
    for (const [, a, b, u] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g))
      for (let g = parseInt(a!, 16); g <= parseInt(b!, 16); g++)
        map.set(g, String.fromCodePoint(hex(u!).codePointAt(0)! + g - parseInt(a!, 16)));
  return map;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const doc = await PDFDocument.load(bytes);
  const fonts = new Map<string, { map: Map<number, string>; outline: (gid: number) => boolean }>();
  let text = "";
  let notdef = 0;
  let blank = 0;
  for (const page of doc.getPages()) {
    const resources = page.node.Resources()!.lookup(PDFName.of("Font"), PDFDict);
    for (const [name, ref] of resources.entries()) {
      if (fonts.has(name.decodeText())) continue;
      const font = doc.context.lookup(ref, PDFDict);
      const map = toUnicode(latin1.decode(inflate(font.lookup(PDFName.of("ToUnicode")) as PDFRawStream)));
      const cid = doc.context.lookup(font.lookup(PDFName.of("DescendantFonts"), PDFArray).get(0), PDFDict);
      const descriptor = cid.lookup(PDFName.of("FontDescriptor"), PDFDict);
      const file = fontkit.create(inflate(descriptor.lookup(PDFName.of("FontFile2")) as PDFRawStream));
      fonts.set(name.decodeText(), {
        map,
        outline: (gid) => (file.getGlyph(gid).path as unknown as { commands: unknown[] }).commands.length > 0,
      });
    }
    const contents: PDFObject | undefined = page.node.Contents();
    const streams =
      contents instanceof PDFArray
        ? contents.asArray().map((r) => doc.context.lookup(r as PDFRef) as PDFRawStream)
        : [contents as PDFRawStream];
    let font = "";
    let y: number | null = null;
    for (const stream of streams) {
      const ops = latin1.decode(inflate(stream));
      for (const op of ops.matchAll(
        /\/(\S+) [\d.]+ Tf|[-\d.]+ [-\d.]+ [-\d.]+ [-\d.]+ [-\d.]+ ([-\d.]+) Tm|<([0-9A-Fa-f]*)> Tj/g,
      )) {
        if (op[1] !== undefined) font = op[1];
        else if (op[2] !== undefined) {
          const at = Number(op[2]);
          if (y !== null && at < y - 0.5) text += "\n";
          y = at;
        } else {
          const f = fonts.get(font)!;
          for (const g of op[3]!.match(/.{4}/g) ?? []) {
            const gid = parseInt(g, 16);
            const ch = f.map.get(gid) ?? "\uFFFD";
            if (gid === 0) notdef++;
            else if (ch.trim() !== "" && !f.outline(gid)) blank++;
            text += ch;
          }
        }
      }
    }
    text += "\n";
  }
  return { pages: doc.getPageCount(), text, notdef, blank };
}

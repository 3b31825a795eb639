/** How many of a file's first bytes decide its type: enough for file-type to look inside an Office document's zip. */
export const SNIFF_BYTES = 64 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Whether bytes read as text a person wrote: UTF-8 without control characters but tab, line breaks and form feed. */
function isText(head: Uint8Array, cut: boolean): boolean {
  // A multi-byte character may be cut at the end of the sample: judge the sample less its last 3 bytes.
  const sample = cut ? head.subarray(0, Math.max(0, head.byteLength - 3)) : head;
  let text: string;
  try {
    text = cut ? new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true }) : utf8.decode(sample);
  } catch {
    return false;
  }
  return !/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text);
}

/**
 * A file's type from its first bytes (`head`; `cut` when the file goes on past them), never from its
 * name or the type its sender declared: what `file-type` recognises, else `text/plain` for text,
 * else `application/octet-stream`. An SVG or HTML page is text here: stored and served as that.
 */
export async function sniffType(head: Uint8Array, cut: boolean): Promise<string> {
  if (head.byteLength === 0) return "application/x-empty";
  // Loaded on the first upload: file-type and what it imports are ~1 MB of idle RSS of a server that may never take a file.
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found) return found.mime;
  return isText(head, cut) ? "text/plain" : "application/octet-stream";
}

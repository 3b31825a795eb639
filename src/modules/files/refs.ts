/**
 * A file as a submission's `data` holds it, and what reads it there (messages, exports, the
 * dashboard): no imports, so the dashboard's bundle takes it as it is.
 */

/** A stored file as a submission's `data` holds it. */
export interface FileRef {
  file: string;
  name: string;
  type: string;
  size: number;
  sha256: string;
}

/**
 * A signed link to a submission's file, working 7 days from `since` (when its message was queued,
 * so every retry of the message carries the same link): absolute when FORMSVC_PUBLIC_URL is set,
 * else the path on this server (`/api/v1/files/…`).
 */
export type FileLinker = (fileId: string, submissionId: string, since: string) => string;

/** Whether a stored value is a file's `data` entry (a JSON submit may carry look-alikes: a link names its submission, so theirs are refused). */
export function isFileRef(v: unknown): v is FileRef {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.file === "string" &&
    o.file.startsWith("fil_") &&
    typeof o.name === "string" &&
    typeof o.type === "string" &&
    typeof o.size === "number" &&
    typeof o.sha256 === "string"
  );
}

/** A field's files: the one file, or every file of a list of them; null when the value is not files. */
export function filesOf(v: unknown): FileRef[] | null {
  if (isFileRef(v)) return [v];
  if (Array.isArray(v) && v.length > 0 && v.every(isFileRef)) return v;
  return null;
}

/** A size as a person reads it: 812 B, 12.4 KB, 3.1 MB. */
export function humanSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let n = bytes / 1000;
  let unit = 0;
  while (n >= 1000 && unit < units.length - 1) {
    n /= 1000;
    unit += 1;
  }
  return `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[unit]}`;
}

/** The owner's download path of a submission's file (secret key or session). */
export const downloadPath = (formId: string, submissionId: string, fileId: string) =>
  `/api/v1/forms/${encodeURIComponent(formId)}/submissions/${encodeURIComponent(submissionId)}/files/${encodeURIComponent(fileId)}`;

/** Office documents as `file-type` names them: OOXML, OpenDocument, and the older compound-file formats. */
const OFFICE_TYPES = [
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.oasis.opendocument.text",
  "application/vnd.oasis.opendocument.spreadsheet",
  "application/vnd.oasis.opendocument.presentation",
  "application/x-cfb",
  "application/rtf",
];

/** What `files: {}` (or the dashboard's switch) turns on: 10 MiB a file, 5 files, 25 MiB in all; images, PDF, plain text, Office documents. */
export const DEFAULT_FILES: { maxFileBytes: number; maxFiles: number; maxTotalBytes: number; types: string[] } = {
  maxFileBytes: 10 * 1024 * 1024,
  maxFiles: 5,
  maxTotalBytes: 25 * 1024 * 1024,
  types: ["image/*", "application/pdf", "text/plain", ...OFFICE_TYPES],
};

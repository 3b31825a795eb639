import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { UnknownField } from "../../http/schemas";
import { slot } from "../../lib/slots";
import { DEFAULT_FILES, type FileRef } from "./refs";

/** A form's `files` setting: how many files a submission may carry, how large, and of which types (sniffed from their bytes). */
export interface FilesSetting {
  maxFileBytes: number;
  maxFiles: number;
  maxTotalBytes: number;
  /** MIME types (`application/pdf`) or whole families (`image/*`). */
  types: string[];
}

/** The most files one submission may carry, whatever a form says: far past any form, well short of a flood of parts. */
export const MAX_FILES_CAP = 100;
// The sizes column is a 32-bit integer on PostgreSQL; FORMSVC_MAX_UPLOAD_BYTES caps a whole request below that anyway.
const MAX_BYTES_CAP = 2_147_483_647;
// A MIME type or family in any case, spaces around it tolerated (kept trimmed and lower-cased); a JSON Schema pattern.
const MIME = "^ *[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/(\\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}) *$";

/** What Get Form shows. */
export const FilesSettingSchema = t.Nullable(
  t.Object({
    maxFileBytes: t.Unsafe<number>({
      type: "integer",
      minimum: 1,
      description: "the largest one file may be, in bytes",
    }),
    maxFiles: t.Unsafe<number>({ type: "integer", minimum: 1, description: "how many files one submission may carry" }),
    maxTotalBytes: t.Unsafe<number>({
      type: "integer",
      minimum: 1,
      description: "the most all of a submission's files may weigh together",
    }),
    types: t.Array(t.String(), {
      description: "MIME types (application/pdf) or families (image/*) allowed, judged by each file's bytes",
    }),
  }),
);

/** What POST and PATCH take: every member optional (the defaults fill the rest). */
export const FilesSettingInput = t.Nullable(
  t.Object(
    {
      maxFileBytes: t.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES_CAP })),
      maxFiles: t.Optional(Type.Integer({ minimum: 1, maximum: MAX_FILES_CAP })),
      maxTotalBytes: t.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES_CAP })),
      types: t.Optional(
        t.Array(t.String({ maxLength: 255, pattern: MIME, description: "application/pdf, image/*, …" }), {
          minItems: 1,
          maxItems: 100,
        }),
      ),
    },
    { additionalProperties: UnknownField },
  ),
  {
    error: `files must be null or {maxFileBytes?, maxFiles? (1 to ${MAX_FILES_CAP}), maxTotalBytes?, types? (MIME types such as application/pdf or image/*)}`,
  },
);

type FilesInput = Partial<FilesSetting> | null;

/** A `files` value as kept: the defaults filled in, types lower-cased and deduplicated. */
export const normalizeFiles = (v: FilesInput): FilesSetting | null =>
  v === null
    ? null
    : {
        ...DEFAULT_FILES,
        ...v,
        types: [...new Set((v.types ?? DEFAULT_FILES.types).map((s) => s.trim().toLowerCase()))],
      };

/** Whether a sniffed type is one of `types` (`image/*` takes any image). */
export const typeAllowed = (type: string, types: string[]) =>
  types.some((allowed) => allowed === type || (allowed.endsWith("/*") && type.startsWith(allowed.slice(0, -1))));

export { DEFAULT_FILES, downloadPath, filesOf, humanSize, isFileRef, type FileLinker, type FileRef } from "./refs";

/** A file of a multipart post, in the store and noted `pending` until its submission commits. */
export interface Upload extends FileRef {
  /** The field it came under (as stored: a trailing `[]` dropped on /f/). */
  field: string;
  key: string;
}

/** The files a multipart post carried (already in the store, pending): the files check reads them, and `attach` makes them the submission's. */
export const uploadsOf = slot<Upload[]>("uploads");

/** The `files` row of the settings table (forms/settings.ts composes it). */
import { parseJsonFlag, setting } from "../forms/setting-row";
import { DEFAULT_FILES, FilesSettingInput, FilesSettingSchema, normalizeFiles } from "./model";

export const FILES_SETTING = setting({
  schema: FilesSettingSchema,
  input: FilesSettingInput,
  field: "files",
  column: "files",
  stored: "json",
  default: null,
  normalize: normalizeFiles,
  example: { ...DEFAULT_FILES, maxFiles: 2, types: ["application/pdf"] },
  cli: {
    flag: "--files <limits>",
    hint: '"on" for the defaults (5 files, 10 MiB each, 25 MiB in all; images, PDF, text, Office), or a JSON object {"maxFileBytes","maxFiles","maxTotalBytes","types"}',
    parse: (text) => (text.trim() === "on" ? {} : parseJsonFlag("files (--files)", text)),
    no: { help: "refuse file uploads (the default)", value: null },
  },
  show: {
    label: "file uploads",
    text: (v) =>
      v === null
        ? "refused"
        : `up to ${v.maxFiles} file(s), ${v.maxFileBytes} bytes each, ${v.maxTotalBytes} in all; ${v.types.join(", ")}`,
  },
});

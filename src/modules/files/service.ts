import { isoTime, type Clock } from "../../lib/clock";
import { AppError, type ErrorCode } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { SentFields } from "../../lib/sent-fields";
import type { ObjectStore } from "../../lib/object-store";
import type { Actor } from "../../lib/principal";
import type { Signer } from "../../lib/signing";
import type { FormsService } from "../forms/service";
import type { SubmitCheck } from "../submissions/pipeline";
import type { Scanner } from "./clamd";
import {
  MAX_FILES_CAP,
  typeAllowed,
  uploadsOf,
  type FileLinker,
  type FileRef,
  type FilesSetting,
  type Upload,
} from "./model";
import { boundaryOf, MultipartReader } from "./multipart";
import type { FileRow, FilesRepo } from "./repo";
import { SNIFF_BYTES, sniffType } from "./sniff";

/** A multipart post read: its text fields and file references in the order sent (a repeated name as a list), and the files stored. */
export interface Received {
  fields: Map<string, unknown>;
  uploads: Upload[];
}

export interface ReceiveOptions {
  /** The body's chunks as the HTTP layer takes them in (at its pace: body-pace.ts). */
  body: AsyncIterable<Uint8Array>;
  /** The team that will own the files: the key's, or the form's. Their keys are `<teamId>/<fileId>`. */
  teamId: string;
  /** FORMSVC_MAX_BODY_BYTES: what the text parts (and the multipart framing) may take in all. */
  maxTextBytes: number;
  /** The form's `files` setting once it is known (null: files refused), else undefined; asked at the first file. */
  policy: (fields: Map<string, unknown>) => Promise<FilesSetting | null | undefined> | FilesSetting | null | undefined;
  /** The name a sent field is stored under. */
  name?: (sent: string) => string;
}

export interface FilesDeps {
  repo: FilesRepo;
  store: ObjectStore;
  forms: Pick<FormsService, "formFor">;
  clock: Clock;
  log: Logger;
  /** Signs the download links (with settings `files_secret`). */
  signer: Signer;
  /** FORMSVC_MAX_UPLOAD_BYTES: the most one request may carry. */
  maxUploadBytes: number;
  /** FORMSVC_CLAMD's scanner, or null. */
  scanner: Scanner | null;
}

/** How long a signed link works. */
export const LINK_DAYS = 7;
const DAY_MS = 86_400_000;
// A file whose submission never committed is removed after this long (an upload still running is younger).
const ORPHAN_AGE_MS = 60 * 60 * 1000;
// How often an upload still coming marks its row as alive (well inside ORPHAN_AGE_MS).
const TOUCH_MS = 60 * 1000;
const SWEEP_CHUNK = 500;
const MAX_NAME = 255;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A refusal of one field's file, naming it. */
const refuse = (code: ErrorCode, field: string, message: string) =>
  new AppError(code, message, undefined, [{ field, code, message }]);

/** The name a person sees: the last segment of what was sent (some clients send a path), control characters out, at most 255 characters. */
function displayName(sent: string): string {
  const base = sent
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, "");
  const name = base === "" || base === "." || base === ".." ? "file" : base;
  return name.length > MAX_NAME ? [...name].slice(0, MAX_NAME).join("") : name;
}

/** A file's `data` entry. */
export const fileRef = (u: FileRef): FileRef => ({
  file: u.file,
  name: u.name,
  type: u.type,
  size: u.size,
  sha256: u.sha256,
});

/** `Content-Disposition: attachment` with the original name: an ASCII fallback and the UTF-8 name (RFC 6266, RFC 5987). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * File uploads: multipart posts read as they stream (files written to the store as they arrive,
 * each sniffed from its first bytes, hashed, counted against the limits, scanned when clamd is set),
 * the submit pipeline's check of a form's `files` setting, downloads (an owner's, or a signed link's),
 * and the removal of files whose submission is gone or never came.
 */
export function createFilesService({ repo, store, clock, log, signer, maxUploadBytes, scanner }: FilesDeps) {
  /** A signed path to a submission's file, working without a key until `LINK_DAYS` after `since` (default now). */
  function signedPath(fileId: string, submissionId: string, since: number = clock.now()): string {
    const expires = Math.floor((since + LINK_DAYS * DAY_MS) / 1000);
    const id = encodeURIComponent(fileId);
    // The link names the submission too: a look-alike file entry in another submission's data (a JSON
    // submit may carry any object) gets a link that the file's own row refuses.
    return `/api/v1/files/${id}?expires=${expires}&signature=${signer.sign(fileId, submissionId, String(expires))}`;
  }

  /** Removes uploads whose submission did not commit (refused, failed, or answered from an earlier idempotent one). */
  async function release(uploads: Upload[]): Promise<void> {
    if (uploads.length === 0) return;
    const rows = await repo.findByIds(uploads.map((u) => u.file));
    const pending = rows.filter((r) => r.state === "pending");
    for (const row of pending) await store.delete(row.key);
    // Uploads whose row never got written (refused before) may still have left nothing: nothing to do.
    await repo.deletePending(pending.map((r) => r.id));
  }

  /** Removes from the store the files whose submission is gone, and those pending longer than an hour; then their rows. */
  async function removeUnattached(): Promise<number> {
    let removed = 0;
    for (;;) {
      const rows = await repo.listUnattached(isoTime(clock.now() - ORPHAN_AGE_MS), SWEEP_CHUNK);
      if (rows.length === 0) return removed;
      for (const row of rows) await store.delete(row.key);
      removed += await repo.deleteUnattached(rows.map((r) => r.id));
      if (rows.length < SWEEP_CHUNK) return removed;
    }
  }

  return {
    store,
    release,
    removeUnattached,

    /**
     * Reads a `multipart/form-data` post as it streams: text fields kept (at most `maxTextBytes` in
     * all, else 413), each file written to the store under a new key as it arrives. A refusal
     * (NO_FILE_UPLOADS, FILE_TYPE_NOT_ALLOWED, TOO_MANY_FILES, FILES_TOO_BIG, FILE_INFECTED, a
     * request over FORMSVC_MAX_UPLOAD_BYTES, counted on every byte) removes what was written and throws. The caller `release`s the uploads when the
     * submission does not commit.
     */
    async receive(request: Request, options: ReceiveOptions): Promise<Received> {
      const tooLarge = () =>
        new AppError(
          "PAYLOAD_TOO_LARGE",
          `request body is larger than ${maxUploadBytes} bytes (FORMSVC_MAX_UPLOAD_BYTES)`,
        );
      const declared = request.headers.get("content-length");
      if (declared !== null && Number(declared) > maxUploadBytes) throw tooLarge();
      const reader = new MultipartReader(
        options.body,
        boundaryOf(request.headers.get("content-type") ?? ""),
        maxUploadBytes,
        tooLarge,
      );
      const name = options.name ?? ((sent: string) => sent);
      const sent = new SentFields();
      const fields = sent.fields;
      const uploads: Upload[] = [];
      let textBytes = 0;
      let policy: FilesSetting | null | undefined;
      let asked = false;
      // The fields' share of the body: their bytes and all of its framing (boundaries, every part's headers).
      const overTextCap = () => {
        if (reader.framing + textBytes > options.maxTextBytes)
          throw new AppError(
            "PAYLOAD_TOO_LARGE",
            `the form's fields are larger than ${options.maxTextBytes} bytes (FORMSVC_MAX_BODY_BYTES); files count apart`,
          );
      };
      try {
        for (let head = await reader.next(); head; head = await reader.next()) {
          overTextCap();
          const field = name(head.name);
          if (field === "")
            throw new AppError("INVALID_BODY", "a field has an empty name: every form field needs a name");
          if (head.filename === undefined) {
            const chunks: Uint8Array[] = [];
            for await (const chunk of reader.body()) {
              chunks.push(Buffer.from(chunk)); // a copy: the reader frees each chunk as it moves on
              textBytes += chunk.byteLength;
              overTextCap();
            }
            let value: string;
            try {
              value = utf8.decode(Buffer.concat(chunks));
            } catch {
              throw new AppError("INVALID_BODY", `field "${field.slice(0, 64)}" is not UTF-8 text`);
            }
            sent.add(field, value);
            continue;
          }
          // The first bytes: enough to sniff, and to tell an empty file input (sent as a nameless empty file) from a file.
          const body = reader.body();
          const first: Uint8Array[] = [];
          let firstBytes = 0;
          let more = true;
          while (firstBytes < SNIFF_BYTES) {
            const next = await body.next();
            if (next.done) {
              more = false;
              break;
            }
            first.push(Buffer.from(next.value)); // a copy: the reader frees each chunk as it moves on
            firstBytes += next.value.byteLength;
          }
          if (!more && firstBytes === 0 && head.filename === "") continue;
          if (!asked) {
            asked = true;
            policy = await options.policy(fields);
          }
          if (policy === null)
            throw refuse(
              "NO_FILE_UPLOADS",
              field,
              `field "${field}" holds a file, and this form takes no file uploads`,
            );
          const maxFiles = policy?.maxFiles ?? MAX_FILES_CAP;
          if (uploads.length + 1 > maxFiles)
            throw refuse("TOO_MANY_FILES", field, `field "${field}": this form takes at most ${maxFiles} file(s)`);
          const headBytes = Buffer.concat(first);
          const type = await sniffType(headBytes.subarray(0, SNIFF_BYTES), more || firstBytes > SNIFF_BYTES);
          if (policy && !typeAllowed(type, policy.types))
            throw refuse(
              "FILE_TYPE_NOT_ALLOWED",
              field,
              `field "${field}": the file is ${type}, which this form does not take (${policy.types.join(", ")})`,
            );
          const id = newId("fil");
          const upload: Upload = {
            file: id,
            name: displayName(head.filename),
            type,
            size: 0,
            sha256: "",
            field,
            key: `${options.teamId}/${id}`,
          };
          await repo.insertPending({
            id,
            team_id: options.teamId,
            key: upload.key,
            field,
            name: upload.name,
            type,
            size: 0,
            sha256: "",
            created_at: isoTime(clock.now()),
          });
          uploads.push(upload);
          const hasher = new Bun.CryptoHasher("sha256");
          const scan = scanner?.start() ?? null;
          const total = () => uploads.reduce((n, u) => n + u.size, 0);
          const count = (chunk: Uint8Array) => {
            upload.size += chunk.byteLength;
            if (policy && upload.size > policy.maxFileBytes)
              throw refuse(
                "FILES_TOO_BIG",
                field,
                `field "${field}": a file may be at most ${policy.maxFileBytes} bytes on this form`,
              );
            if (policy && total() > policy.maxTotalBytes)
              throw refuse(
                "FILES_TOO_BIG",
                field,
                `field "${field}": this form takes at most ${policy.maxTotalBytes} bytes of files per submission`,
              );
            hasher.update(chunk);
          };
          async function* bytes(): AsyncGenerator<Uint8Array> {
            count(headBytes);
            await scan?.write(headBytes);
            yield headBytes;
            if (!more) return;
            let touched = clock.now();
            for await (const chunk of body) {
              count(chunk);
              // An upload at the slowest rate allowed may outlast the orphan sweep's hour: its row says it is alive.
              if (clock.now() - touched >= TOUCH_MS) {
                touched = clock.now();
                await repo.touchPending(id, isoTime(touched));
              }
              // Waits while clamd takes it: a slow scanner slows the upload rather than filling memory.
              await scan?.write(chunk);
              yield chunk;
            }
          }
          try {
            await store.put(upload.key, bytes());
          } catch (e) {
            scan?.abort();
            throw e;
          }
          if (scan) {
            const verdict = await scan.finish();
            if (verdict !== "clean")
              throw refuse(
                "FILE_INFECTED",
                field,
                `field "${field}": the file carries ${verdict.found}; it was not stored`,
              );
          }
          upload.sha256 = hasher.digest("hex");
          await repo.finishPending(id, { size: upload.size, type, sha256: upload.sha256 });
          sent.add(field, fileRef(upload));
        }
        overTextCap();
      } catch (e) {
        // What is left of the body is read away after the answer (body-pace.ts), so the client hears why.
        await release(uploads).catch((err) => log.error("files: could not remove a refused upload", { err }));
        throw e;
      }
      return { fields, uploads };
    },

    /**
     * The submit pipeline's check of a post's files against the form's `files` setting (the reader
     * enforced it as they came when it knew the form; this is the rule whatever the path): null
     * refuses any file, then the count, the sizes, the types. A submit without files passes at once.
     */
    check: {
      name: "files",
      check(candidate) {
        const uploads = uploadsOf.get(candidate);
        if (!uploads?.length) return "accept";
        const { form } = candidate;
        const files = form.files;
        const first = uploads[0]!;
        if (files === null)
          return refuse(
            "NO_FILE_UPLOADS",
            first.field,
            `field "${first.field}" holds a file, and this form takes no file uploads`,
          );
        if (uploads.length > files.maxFiles) {
          const extra = uploads[files.maxFiles]!;
          return refuse(
            "TOO_MANY_FILES",
            extra.field,
            `field "${extra.field}": this form takes at most ${files.maxFiles} file(s)`,
          );
        }
        let total = 0;
        for (const u of uploads) {
          total += u.size;
          if (u.size > files.maxFileBytes || total > files.maxTotalBytes)
            return refuse(
              "FILES_TOO_BIG",
              u.field,
              `field "${u.field}": a file may be at most ${files.maxFileBytes} bytes, and all of a submission's ${files.maxTotalBytes}`,
            );
          if (!typeAllowed(u.type, files.types))
            return refuse(
              "FILE_TYPE_NOT_ALLOWED",
              u.field,
              `field "${u.field}": the file is ${u.type}, which this form does not take (${files.types.join(", ")})`,
            );
        }
        return "accept";
      },
    } satisfies SubmitCheck,

    /** The stored files of these submissions (exports, a person's export). */
    listForSubmissions: (ids: string[]): Promise<FileRow[]> => repo.listForSubmissions(ids),

    signedPath,

    /** The links messages carry (FileLinker): under `publicUrl` (FORMSVC_PUBLIC_URL) when set, else the bare path. */
    linker:
      (publicUrl: string): FileLinker =>
      (fileId, submissionId, since) =>
        `${publicUrl.replace(/\/$/, "")}${signedPath(fileId, submissionId, Date.parse(since))}`,

    /** A file of a submission of a form `actor` may read: 404 for the form, 403 for another owner's, 404 for a file not the submission's. */
    async download(
      actor: Actor,
      formId: string,
      submissionId: string,
      fileId: string,
      submissionOf: (actor: Actor, formId: string, id: string) => Promise<unknown>,
    ) {
      await submissionOf(actor, formId, submissionId);
      const row = await repo.findOfSubmission(submissionId, fileId);
      const object = row && (await store.get(row.key));
      if (!row || !object) throw new AppError("NOT_FOUND", `submission ${submissionId} has no file ${fileId}`);
      return { row, ...object };
    },

    /** A file by a signed link: 403 for a link changed or past its time, 404 once the file is gone. */
    async downloadSigned(fileId: string, expires: string, signature: string) {
      const forbidden = () =>
        new AppError("FORBIDDEN", "this download link was changed or has expired; ask the form's owner for a new one");
      const at = Number(expires);
      if (!/^\d{1,12}$/.test(expires) || at * 1000 < clock.now()) throw forbidden();
      const [row] = await repo.findByIds([fileId]);
      const gone = () => new AppError("NOT_FOUND", `file ${fileId} is no longer stored`);
      if (!row || row.state !== "stored" || row.submission_id === null) throw gone();
      if (!signer.verifies(signature, fileId, row.submission_id, String(at))) throw forbidden();
      const object = await store.get(row.key);
      if (!object) throw gone();
      return { row, ...object };
    },
  };
}

export type FilesService = ReturnType<typeof createFilesService>;

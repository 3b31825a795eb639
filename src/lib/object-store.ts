import { S3Client } from "bun";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";

/**
 * Where formsvc keeps bytes that are not rows: uploaded files and backups. One small interface, two
 * places: a folder on this machine, or any S3-compatible bucket. Keys are relative paths
 * (`a/b/c.ext`); nothing a visitor sends becomes part of one.
 */
export interface ObjectStore {
  /** The folder path or `s3://BUCKET/PREFIX`, for messages. */
  readonly location: string;
  /** Stores `body` under `key`, replacing what was there; durable once the promise resolves. Answers the bytes written. */
  put(key: string, body: Uint8Array | AsyncIterable<Uint8Array>): Promise<number>;
  /** The stored bytes as a stream, with their size; `null` when nothing is stored under `key`. */
  get(key: string): Promise<{ size: number; stream: ReadableStream<Uint8Array> } | null>;
  /** Removes `key`; nothing stored there is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every key under `prefix` (a folder-like prefix ending in `/`, never `""`), and in a folder the folder itself. */
  deleteAll(prefix: string): Promise<void>;
  /** Every key under `prefix` (a folder-like prefix ending in `/`, or `""`), with size and time stored. */
  list(prefix: string): AsyncIterable<StoredObject>;
}

export interface StoredObject {
  key: string;
  size: number;
  modified: Date;
}

/** How to reach S3-compatible storage; the `FORMSVC_S3_*` settings. */
export interface S3Settings {
  s3Endpoint: string;
  s3Region: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  s3PathStyle: boolean;
}

/** Whether a location names a bucket (`s3://BUCKET/PREFIX`) rather than a folder. */
export const isS3Location = (location: string) => /^s3:\/\//i.test(location);

/** The store a `FORMSVC_FILES`-like setting names: `s3://BUCKET/PREFIX` or a folder path. */
export function openObjectStore(location: string, s3: S3Settings): ObjectStore {
  return isS3Location(location) ? s3Store(location, s3) : folderStore(location);
}

const KEY = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Keys are made by formsvc; a key that could leave the store's folder or prefix is a bug, refused loudly. */
function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`object-store: invalid key ${JSON.stringify(key)}`);
  return key;
}

/** A prefix to delete under: a key's folder, never the whole store. */
const checkFolder = (prefix: string) => {
  if (!prefix.endsWith("/")) throw new Error(`object-store: invalid prefix ${JSON.stringify(prefix)}`);
  return checkKey(prefix.slice(0, -1));
};

async function* chunksOf(body: Uint8Array | AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (body instanceof Uint8Array) yield body;
  else yield* body;
}

/**
 * A folder: files 0600 and folders 0700 whatever the umask. Each object is written under a temporary
 * name, synced, renamed into place and its folder synced, so a crash leaves either the old object or
 * the whole new one, and a resolved `put` survives power loss.
 */
export function folderStore(root: string): ObjectStore {
  const pathOf = (key: string) => join(root, checkKey(key));
  return {
    location: root,
    async put(key, body) {
      const path = pathOf(key);
      const folder = dirname(path);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const temp = join(folder, `.${randomBytes(8).toString("hex")}.part`);
      const file = await open(temp, "wx", 0o600);
      // Bun's own writer, not FileHandle.write: each of those left garbage the collector was slow to
      // take (a 50 MB upload grew the server by 6-14 MB through it, by 5 through this).
      const sink = Bun.file(file.fd).writer();
      let bytes = 0;
      try {
        for await (const chunk of chunksOf(body)) {
          await sink.write(chunk);
          // Written before the next chunk is asked for: the caller may free it, and reading waits for the disk.
          await sink.flush();
          bytes += chunk.byteLength;
        }
        await sink.end();
        await file.sync();
      } catch (e) {
        await Promise.resolve(sink.end()).catch(() => {});
        await file.close();
        await rm(temp, { force: true });
        throw e;
      }
      await file.close();
      await rename(temp, path);
      await syncFolder(folder);
      return bytes;
    },
    async get(key) {
      const file = Bun.file(pathOf(key));
      const size = await file
        .stat()
        .then((s) => (s.isFile() ? s.size : null))
        .catch(() => null);
      return size === null ? null : { size, stream: file.stream() };
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async deleteAll(prefix) {
      // The folder too, and a `.part` left by a write cut short: deleting its keys one by one leaves both.
      const folder = join(root, checkFolder(prefix));
      await rm(folder, { recursive: true, force: true });
      await syncFolder(dirname(folder)).catch(() => {});
    },
    async *list(prefix) {
      const start = join(root, prefix === "" ? "." : checkKey(prefix.replace(/\/$/, "")));
      for (const entry of await readdir(start, { recursive: true, withFileTypes: true }).catch(() => [])) {
        if (!entry.isFile() || entry.name.endsWith(".part")) continue;
        const path = join(entry.parentPath, entry.name);
        const info = await stat(path).catch(() => null);
        if (info) yield { key: relative(root, path).split(sep).join("/"), size: info.size, modified: info.mtime };
      }
    },
  };
}

/** Makes a rename or removal in `folder` durable (the folder's entry list is data too). */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Parts of a streamed upload; S3 needs at least 5 MiB for every part but the last. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * An S3-compatible bucket through Bun's built-in client: AWS, MinIO, R2, Garage… Path-style addressing
 * (`ENDPOINT/BUCKET/KEY`) unless `FORMSVC_S3_PATH_STYLE` is off, then `BUCKET.ENDPOINT-HOST/KEY`.
 * A `put` resolves once the store has answered the last part, which is its acknowledgement of durability.
 */
export function s3Store(location: string, s3: S3Settings): ObjectStore {
  const url = new URL(location);
  const bucket = url.hostname;
  const prefix = url.pathname.replace(/^\/+|\/+$/g, "");
  const virtualHost = !s3.s3PathStyle && s3.s3Endpoint !== "";
  const endpoint = virtualHost
    ? ((u) => ((u.hostname = `${bucket}.${u.hostname}`), u.origin))(new URL(s3.s3Endpoint))
    : s3.s3Endpoint || undefined;
  const client = new S3Client({
    bucket,
    endpoint,
    virtualHostedStyle: virtualHost || undefined,
    region: s3.s3Region || undefined,
    accessKeyId: s3.s3AccessKeyId || undefined,
    secretAccessKey: s3.s3SecretAccessKey || undefined,
  });
  const full = (key: string) => (prefix ? `${prefix}/${checkKey(key)}` : checkKey(key));
  const store: ObjectStore = {
    location: `s3://${bucket}${prefix ? `/${prefix}` : ""}`,
    async put(key, body) {
      if (body instanceof Uint8Array) {
        await client.write(full(key), body);
        return body.byteLength;
      }
      const writer = client.file(full(key)).writer({ partSize: PART_BYTES, retry: 3 });
      let bytes = 0;
      try {
        for await (const chunk of body) {
          await writer.write(chunk);
          bytes += chunk.byteLength;
        }
        await writer.end();
      } catch (e) {
        // Ending with an error aborts a multipart upload, but a body still within one part may be
        // sent whole: delete whatever arrived, so a failed put never leaves part of an object.
        await Promise.resolve(writer.end(e as Error)).catch(() => {});
        await client.delete(full(key)).catch(() => {});
        throw e;
      }
      return bytes;
    },
    async get(key) {
      const file = client.file(full(key));
      const size = await file
        .stat()
        .then((s) => s.size)
        .catch(() => null);
      return size === null ? null : { size, stream: file.stream() };
    },
    async delete(key) {
      await client.delete(full(key));
    },
    async deleteAll(under) {
      checkFolder(under);
      // Listed whole first: deleting while paging could make a page skip keys.
      const keys: string[] = [];
      for await (const o of store.list(under)) keys.push(o.key);
      for (const key of keys) await client.delete(full(key));
    },
    async *list(under) {
      const listPrefix = [prefix, under].filter(Boolean).join("/").replace(/\/+/g, "/");
      let startAfter: string | undefined;
      for (;;) {
        const page = await client.list({ prefix: listPrefix, startAfter, maxKeys: 1000 });
        for (const item of page.contents ?? []) {
          yield {
            key: prefix ? item.key.slice(prefix.length + 1) : item.key,
            size: item.size ?? 0,
            modified: new Date(item.lastModified ?? 0),
          };
        }
        if (!page.isTruncated || !page.contents?.length) return;
        startAfter = page.contents.at(-1)!.key;
      }
    },
  };
  return store;
}

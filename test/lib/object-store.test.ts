import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderStore, openObjectStore, type ObjectStore } from "../../src/lib/object-store";
import { startS3, type S3Server } from "../helpers/s3";

// The two places formsvc keeps uploaded files and backups, held to one behaviour.
let s3: S3Server;
let folder: string;
let umask: number;
beforeAll(async () => {
  umask = process.umask(0o022);
  s3 = await startS3();
  folder = mkdtempSync(join(tmpdir(), "formsvc-store-"));
});
afterAll(async () => {
  process.umask(umask);
  await s3.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function* chunks(count: number, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < count; i++) yield new Uint8Array(size).fill(i + 1);
}

async function read(store: ObjectStore, key: string): Promise<Uint8Array | null> {
  const got = await store.get(key);
  return got ? new Uint8Array(await new Response(got.stream).arrayBuffer()) : null;
}

const stores: [string, () => ObjectStore][] = [
  ["a folder", () => openObjectStore(join(folder, "objects"), s3.settings)],
  ["an S3 bucket", () => openObjectStore(`s3://${s3.bucket}/some/prefix`, s3.settings)],
];

describe.each(stores)("an object store in %s", (_name, make) => {
  test("stores bytes given at once and streamed in chunks, and gives them back with their size", async () => {
    const store = make();
    expect(await store.put("small/one.txt", new TextEncoder().encode("hello"))).toBe(5);
    // 12 MiB in 4 MiB chunks: more than one multipart part on S3.
    expect(await store.put("big/two.bin", chunks(3, 4 * 1024 * 1024))).toBe(12 * 1024 * 1024);
    expect(new TextDecoder().decode((await read(store, "small/one.txt"))!)).toBe("hello");
    const big = (await read(store, "big/two.bin"))!;
    expect(big.byteLength).toBe(12 * 1024 * 1024);
    expect([big[0], big[4 * 1024 * 1024], big.at(-1)]).toEqual([1, 2, 3]);
    expect((await store.get("big/two.bin"))!.size).toBe(12 * 1024 * 1024);
  });

  test("lists keys under a prefix relative to the store, and forgets deleted ones", async () => {
    const store = make();
    await store.put("list/a.txt", new Uint8Array([1]));
    await store.put("list/b/c.txt", new Uint8Array([1, 2]));
    const listed = async () => {
      const out: [string, number][] = [];
      for await (const o of store.list("list/")) out.push([o.key, o.size]);
      return out.sort();
    };
    expect(await listed()).toEqual([
      ["list/a.txt", 1],
      ["list/b/c.txt", 2],
    ]);
    await store.delete("list/a.txt");
    await store.delete("list/never-there.txt");
    expect(await listed()).toEqual([["list/b/c.txt", 2]]);
    expect(await store.get("list/a.txt")).toBeNull();
  });

  test("deletes everything under a folder-like prefix, and nothing beside it; never the whole store", async () => {
    const store = make();
    for (const key of ["gone/a", "gone/b/c", "gone.txt", "gone-too/d"]) await store.put(key, new Uint8Array([1]));
    await store.deleteAll("gone/");
    const left: string[] = [];
    for await (const o of store.list("")) if (o.key.startsWith("gone")) left.push(o.key);
    expect(left.sort()).toEqual(["gone-too/d", "gone.txt"]);
    for (const prefix of ["", "/", "gone-too"]) await expect(store.deleteAll(prefix)).rejects.toThrow("invalid");
    expect(await store.get("gone-too/d")).not.toBeNull();
  });

  test("a stream that fails leaves nothing stored under the key", async () => {
    const store = make();
    async function* failing(): AsyncIterable<Uint8Array> {
      yield new Uint8Array(1024);
      throw new Error("the visitor went away");
    }
    await expect(store.put("broken/x.bin", failing())).rejects.toThrow("the visitor went away");
    expect(await store.get("broken/x.bin")).toBeNull();
  });

  test.each(["../escape", "a/../../b", "/absolute", "a//b", "", "a b"])("refuses the key %p", async (key) => {
    await expect(make().put(key, new Uint8Array([1]))).rejects.toThrow("invalid key");
  });
});

test("a folder store writes files 0600 and folders 0700 under umask 022, with no temporary file left", async () => {
  const root = join(folder, "modes");
  const store = folderStore(root);
  await store.put("deep/er/file.bin", chunks(2, 1000));
  expect(statSync(join(root, "deep/er/file.bin")).mode & 0o777).toBe(0o600);
  for (const dir of [root, join(root, "deep"), join(root, "deep/er")]) expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(readdirSync(join(root, "deep/er"))).toEqual(["file.bin"]);
});

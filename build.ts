// `npm run build`: the single binary dist/formsvc and the client library under dist/client/.
import { $, type BunPlugin } from "bun";
import { readFileSync, rmSync } from "node:fs";
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

/** dist/formsvc (or `outfile`): the whole server, its migrations, the geoip country data and the dashboard's bundle in one executable. */
export async function buildBinary(version: string, outfile = join(DIST, "formsvc")): Promise<string> {
  // Built here once, so the binary serves it without a bundler (src/dashboard/bundle.ts reads it back).
  const dashboard = await buildDashboard();
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/main.ts")],
    compile: {
      outfile,
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
  if (!result.success) throw new AggregateError(result.logs, "building dist/formsvc failed");
  return outfile;
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

// A test builds the binary on its own through buildBinary (into a folder of its own).
if (import.meta.main) await main();

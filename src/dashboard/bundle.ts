import { join } from "node:path";

/** One file of the dashboard's browser bundle, named by its content (`main-1a2b3c4d.js`). */
export interface DashboardFile {
  name: string;
  type: string;
  text: string;
}

/** The dashboard's script, stylesheet and icon, with the names the page links them by. */
export interface DashboardBundle {
  files: DashboardFile[];
  script: string;
  style: string;
}

// Set by build.ts in the compiled binary: the bundle built once, at build time, as JSON text.
declare const FORMSVC_DASHBOARD: string | undefined;

const ENTRY = join(import.meta.dir, "app/main.tsx");

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

/**
 * Builds the single-page app from src/dashboard/app with Bun's bundler, in memory: one minified
 * script (Preact, signals, uPlot and the app) and one stylesheet, each named by a hash of its
 * content so a browser may keep it for a year. Throws with the bundler's messages when it fails.
 */
export async function buildDashboard(): Promise<DashboardBundle> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    format: "esm",
    minify: true,
    naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "building the dashboard failed");
  const files = await Promise.all(
    result.outputs.map(async (out) => {
      const name = out.path.replace(/^.*[\\/]/, "");
      const ext = name.slice(name.lastIndexOf(".") + 1);
      const type = TYPES[ext];
      if (!type) throw new Error(`the dashboard's bundle has a file of an unexpected kind: ${name}`);
      return { name, type, text: await out.text() };
    }),
  );
  const script = files.find((f) => f.name.endsWith(".js"))?.name;
  const style = files.find((f) => f.name.endsWith(".css"))?.name;
  if (!script || !style || files.length !== 2)
    throw new Error(
      `the dashboard's bundle is not one script and one stylesheet: ${files.map((f) => f.name).join(", ")}`,
    );
  return { files, script, style };
}

let built: Promise<DashboardBundle> | undefined;

/**
 * The dashboard's bundle: the one build.ts put in the binary, or, running from a checkout, built
 * from source on first use and kept for the life of the process (it depends on the source files
 * alone, so every server in the process may share it, and a test server that never serves the
 * dashboard never pays for the build).
 */
export function dashboardBundle(): Promise<DashboardBundle> {
  if (typeof FORMSVC_DASHBOARD === "string")
    return (built ??= Promise.resolve(JSON.parse(FORMSVC_DASHBOARD) as DashboardBundle));
  built ??= buildDashboard();
  // A failed build is not kept: the next request tries again (after the source is fixed, say).
  built.catch(() => (built = undefined));
  return built;
}

import Chromium from "@sparticuz/chromium";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";

// @sparticuz/chromium's flags are for serverless sandboxes; these three would make the browser
// unlike a user's: no same-origin policy, http content on https pages, everything in one process.
const DROPPED_FLAGS = new Set(["--disable-web-security", "--allow-running-insecure-content", "--single-process"]);

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface OfflinePage {
  page: Page;
  context: BrowserContext;
  /** Every request for a host other than loopback, in the order asked: aborted, or refused by the local proxy, before it left. */
  blocked: string[];
  /** Console errors and uncaught exceptions on the page (a CSP refusal shows up here). */
  errors: string[];
  close(): Promise<void>;
}

/**
 * How the network is cut. "route" (the default): Playwright intercepts every request and aborts
 * those for other hosts. But while it intercepts, Playwright answers every CORS preflight itself
 * (204, anything allowed) and the server never sees it; a test of a server's CORS needs "proxy":
 * nothing is intercepted, and the context's proxy is a local one that records every request for a
 * host other than loopback and refuses it (loopback bypasses it).
 */
export type NetworkCut = "route" | "proxy";

export interface TestBrowser {
  /** A page in a fresh context (no cookies, storage or cache shared with other tests) with the network cut. */
  newPage(options?: BrowserContextOptions, cut?: NetworkCut): Promise<OfflinePage>;
  close(): Promise<void>;
}

/** A proxy on loopback that answers nothing but 403, recording what was asked of it (the URL, or the host of a CONNECT as https://host:port/). */
async function refusingProxy(blocked: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket.on("close", () => sockets.delete(socket)));
    socket.on("error", () => {});
    socket.once("data", (chunk) => {
      const [method, target = ""] = chunk.toString("latin1").split("\r\n", 1)[0]!.split(" ");
      blocked.push(method === "CONNECT" ? `https://${target}/` : target);
      socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * A real headless Chromium, the one shipped inside the @sparticuz/chromium package (no download at
 * install or test time; extracted on first use, see chromiumExecutable). Launch once per test file
 * (beforeAll) and close in afterAll.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser: Browser = await chromium.launch({
    executablePath: await chromiumExecutable(),
    args: Chromium.args.filter((flag) => !DROPPED_FLAGS.has(flag)),
    headless: true,
  });
  return {
    async newPage(options = {}, cut = "route") {
      const blocked: string[] = [];
      const errors: string[] = [];
      const proxy = cut === "proxy" ? await refusingProxy(blocked) : null;
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        serviceWorkers: "block",
        ...(proxy ? { proxy: { server: proxy.url, bypass: [...LOOPBACK].join(",") } } : {}),
        ...options,
      });
      // Under bun test's 30 s per test: a missing element fails with Playwright's message, not a bare timeout.
      context.setDefaultTimeout(10_000);
      if (!proxy) {
        await context.route("**/*", (route) => {
          const url = new URL(route.request().url());
          // Chromium resolves every *.localhost to loopback itself (a second site on this machine, for passkeys).
          const loopback = LOOPBACK.has(url.hostname) || url.hostname.endsWith(".localhost");
          const local = (url.protocol === "http:" || url.protocol === "https:") && loopback;
          if (local || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
          blocked.push(url.href);
          return route.abort("blockedbyclient");
        });
      }
      const page = await context.newPage();
      page.on("console", (msg) => {
        if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
      });
      page.on("pageerror", (e) => errors.push(`page: ${e.message}`));
      return {
        page,
        context,
        blocked,
        errors,
        async close() {
          await context.close();
          await proxy?.close();
        },
      };
    },
    close: () => browser.close(),
  };
}

/**
 * The path of this package version's Chromium, extracted once into a folder of its own under the system
 * temp folder (~200 MB, kept for later runs).
 *
 * Chromium.executablePath() on its own extracts into the temp folder's root and reuses whatever it finds
 * there: a `chromium` binary, and the ANGLE/SwiftShader libraries (libGLESv2.so, libEGL.so…) next to it.
 * A /tmp that another version already used thus gives that version's browser, or this version's browser
 * with the other's libraries, which dies at launch with SIGTRAP ("eglGetProcAddress not found"). So the
 * extraction runs with TMPDIR pointed at a fresh folder, which is then renamed into place: a folder named
 * after the version only ever holds that version, complete (a concurrent run's rename loses, not mixes).
 */
async function chromiumExecutable(): Promise<string> {
  const pkgDir = join(dirname(Bun.resolveSync("@sparticuz/chromium", import.meta.dir)), "../..");
  const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };
  const root = tmpdir();
  const dir = join(root, `formsvc-chromium-${version}`);
  const executable = join(dir, "chromium");
  if (existsSync(executable)) return executable;

  const staging = mkdtempSync(join(root, `formsvc-chromium-${version}.`));
  try {
    // executablePath() reads TMPDIR synchronously, before its first await: restore it at once, so
    // nothing else running meanwhile (the test server starting, say) sees the staging folder.
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = staging;
    let extracted: Promise<string>;
    try {
      extracted = Chromium.executablePath(join(pkgDir, "bin"));
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    const path = await extracted;
    if (path !== join(staging, "chromium"))
      throw new Error(`@sparticuz/chromium ${version} extracted to ${path}, not into ${staging}`);
    try {
      renameSync(staging, dir);
    } catch (e) {
      if (!existsSync(executable)) throw e; // not merely another run that got there first
    }
    return executable;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Saves a full-page PNG under the system temp folder (never in the repository) and prints its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(tmpdir(), "formsvc-screenshots");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
  return path;
}

import { Elysia } from "elysia";
// The altcha widget, pinned in package.json and embedded in the binary (a file import yields a path,
// under /$bunfs/ in the binary): a page loads it from formsvc, never from a CDN. The UMD build works
// from a plain <script src> as well as from <script type="module">. The package's exports map names
// only its unminified builds, so the minified one (113 KB against 269 KB) is imported by its path.
import widgetPath from "../../../node_modules/altcha/dist/main/altcha.umd.min.cjs" with { type: "file" };
import { asset, CACHE_A_DAY, JS } from "../../http/assets";

/** GET /widget/altcha.js: the proof-of-work widget for a form whose challenge is pow. Outside the API, no key, cacheable. */
export function widgetRoutes() {
  return new Elysia({ name: "widget-routes" }).get(
    "/widget/altcha.js",
    asset(() => Bun.file(widgetPath), JS, CACHE_A_DAY),
    { detail: { hide: true } },
  );
}

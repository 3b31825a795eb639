import { Elysia } from "elysia";
// The altcha widget, pinned in package.json and embedded in the binary (a file import yields a path,
// under /$bunfs/ in the binary): a page loads it from formsvc, never from a CDN. The UMD build works
// from a plain <script src> as well as from <script type="module">. The package's exports map names
// only its unminified builds, so the minified one (113 KB against 269 KB) is imported by its path.
import widgetPath from "../../../node_modules/altcha/dist/main/altcha.umd.min.cjs" with { type: "file" };
import de from "../../../node_modules/altcha/dist/i18n/de.umd.cjs" with { type: "file" };
import es from "../../../node_modules/altcha/dist/i18n/es-es.umd.cjs" with { type: "file" };
import fr from "../../../node_modules/altcha/dist/i18n/fr-fr.umd.cjs" with { type: "file" };
import it from "../../../node_modules/altcha/dist/i18n/it.umd.cjs" with { type: "file" };
import ja from "../../../node_modules/altcha/dist/i18n/ja.umd.cjs" with { type: "file" };
import nl from "../../../node_modules/altcha/dist/i18n/nl.umd.cjs" with { type: "file" };
import pl from "../../../node_modules/altcha/dist/i18n/pl.umd.cjs" with { type: "file" };
import pt from "../../../node_modules/altcha/dist/i18n/pt-br.umd.cjs" with { type: "file" };
import { asset, CACHE_A_DAY, JS } from "../../http/assets";
import { AppError } from "../../lib/errors";

// The widget's own words in the languages of the pages for people (dropin/locale.ts) but English,
// which it carries: a page loads its language's pack beside it (`widgetLanguagePath`).
const PACKS: Record<string, string> = { de, es, fr, it, ja, nl, pl, pt };

/** Where a page in `lang` loads the widget's words from; none for English. */
export const widgetLanguagePath = (lang: string): string | null => (lang in PACKS ? `/widget/altcha-${lang}.js` : null);

/** GET /widget/altcha.js: the proof-of-work widget for a form whose challenge is pow. Outside the API, no key, cacheable. */
export function widgetRoutes() {
  return new Elysia({ name: "widget-routes" })
    .get(
      "/widget/altcha.js",
      asset(() => Bun.file(widgetPath), JS, CACHE_A_DAY),
      { detail: { hide: true } },
    )
    .get(
      "/widget/:pack",
      (context) => {
        const pack = PACKS[/^altcha-([a-z]{2})\.js$/.exec(context.params.pack)?.[1] ?? ""];
        if (!pack) throw new AppError("NOT_FOUND", "no such widget file");
        return asset(() => Bun.file(pack), JS, CACHE_A_DAY)(context);
      },
      { detail: { hide: true } },
    );
}

// Imported first by main.tsx: it must run before the chart library, which formats with
// `navigator.language` as it loads and would throw, leaving a blank page.

/** `tag` as Intl takes it, else its language part (`en-US@posix` → `en`), else undefined. */
function usable(tag: string | undefined): string | undefined {
  for (const candidate of [tag, tag?.split(/[-_@.]/)[0]]) {
    if (!candidate) continue;
    try {
      const [canonical] = Intl.getCanonicalLocales(candidate);
      if (canonical) return canonical;
    } catch {}
  }
  return undefined;
}

/**
 * The reader's languages, as Intl takes them. A browser may report a tag Intl refuses (a headless
 * Chromium under LANG=C says `en-US@posix`), or none; empty means the runtime's own default.
 */
export const LOCALES: string[] = [
  ...new Set(
    (navigator.languages?.length ? navigator.languages : [navigator.language]).flatMap((t) => usable(t) ?? []),
  ),
];

// What the chart library reads: the first usable language, or undefined (Intl's default) for none.
if (usable(navigator.language) !== navigator.language)
  Object.defineProperty(navigator, "language", { configurable: true, get: () => LOCALES[0] });

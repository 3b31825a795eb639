/**
 * Rendered pages of submissions, per form. Dashboards poll the first page, and a poll that finds
 * nothing new is answered from memory. The submissions service drops a form's pages when a commit
 * adds to it (before its submitters are answered) and all pages when another process commits
 * (the change feed), so a read after a write always sees it. Bounded by size: past the budget it
 * starts over, which is cheap, since every page can be rendered again.
 */
export function createPageCache(maxChars = 4 * 1024 * 1024) {
  const byForm = new Map<string, Map<string, string>>();
  let size = 0;
  // Counts the drops and clears: a page read before one may be older than it.
  let drops = 0;

  const clear = () => {
    drops += 1;
    byForm.clear();
    size = 0;
  };

  return {
    get: (formId: string, page: string): string | undefined => byForm.get(formId)?.get(page),

    /** Where the cache is now; a page read from here on is passed to `set` with it. */
    generation: () => drops,

    /** Keeps a page read at `generation` (see `generation`), unless something was dropped since: then it may be stale. */
    set(formId: string, page: string, body: string, generation: number): void {
      if (generation !== drops) return;
      // A page of 100 large submissions is rare and would evict everything else: left out.
      if (body.length > maxChars / 8) return;
      if (size + body.length > maxChars) clear();
      let pages = byForm.get(formId);
      if (!pages) byForm.set(formId, (pages = new Map()));
      size += body.length - (pages.get(page)?.length ?? 0);
      pages.set(page, body);
    },

    drop(formIds: Iterable<string>): void {
      drops += 1;
      for (const id of formIds) {
        for (const body of byForm.get(id)?.values() ?? []) size -= body.length;
        byForm.delete(id);
      }
    },

    clear,
  };
}

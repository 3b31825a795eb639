/**
 * Rendered answers drawn from a form's submissions (pages of them, analytics), per form. Dashboards
 * poll them, and a poll that finds nothing new is answered from memory. The submissions service
 * drops a form's answers when a commit changes its submissions (added, moved, deleted; before
 * anyone is answered), and the composition root clears them all when another process commits
 * (the change feed), so a read after a write always sees it. An answer that depends on the day
 * names the day in its key. Bounded by size: past the budget it starts over, which is cheap,
 * since every answer can be rendered again.
 */
export function createAnswerCache(maxChars = 4 * 1024 * 1024) {
  const byForm = new Map<string, Map<string, string>>();
  let size = 0;
  // Counts the drops and clears: an answer rendered from reads before one may be older than it.
  let drops = 0;

  const clear = () => {
    drops += 1;
    byForm.clear();
    size = 0;
  };

  return {
    get: (formId: string, key: string): string | undefined => byForm.get(formId)?.get(key),

    /** Where the cache is now; an answer rendered from reads made from here on is passed to `set` with it. */
    generation: () => drops,

    /** Keeps an answer rendered at `generation` (see `generation`), unless something was dropped since: then it may be stale. */
    set(formId: string, key: string, body: string, generation: number): void {
      if (generation !== drops) return;
      // A page of 100 large submissions is rare and would evict everything else: left out.
      if (body.length > maxChars / 8) return;
      if (size + body.length > maxChars) clear();
      let answers = byForm.get(formId);
      if (!answers) byForm.set(formId, (answers = new Map()));
      size += body.length - (answers.get(key)?.length ?? 0);
      answers.set(key, body);
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

export type AnswerCache = ReturnType<typeof createAnswerCache>;

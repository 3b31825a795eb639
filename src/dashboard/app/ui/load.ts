import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** What a page shows while its data comes: still loading, failed (with the error), or there. */
export type Loaded<T> = { state: "loading" } | { state: "failed"; error: unknown } | { state: "ready"; data: T };

/**
 * Loads data for a component and loads it again when `deps` change or `reload` is called; an answer
 * that arrives after a newer request started is dropped, so a fast click never shows stale data.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void, (data: T) => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    setValue((v) => (v.state === "ready" && round > 0 ? v : { state: "loading" }));
    load().then(
      (data) => mine === latest.current && setValue({ state: "ready", data }),
      (error: unknown) => mine === latest.current && setValue({ state: "failed", error }),
    );
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const replace = useCallback((data: T) => setValue({ state: "ready", data }), []);
  return [value, reload, replace];
}

/** For 405s: which methods the app serves on a path that exists under another method. */
export function methodsFor(routes: { method: string; path: string }[]) {
  const patterns = routes.map((r) => ({
    method: r.method,
    regex: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*")}$`),
  }));
  return (path: string): string[] => [...new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method))];
}

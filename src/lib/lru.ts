/** A small least-recently-used memo: Map keeps insertion order, so the first key is the oldest. */
export function memoize<V>(size: number, compute: (key: string) => V): (key: string) => V {
  const cache = new Map<string, V>();
  return (key) => {
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const value = compute(key);
    if (cache.size >= size) cache.delete(cache.keys().next().value!);
    cache.set(key, value);
    return value;
  };
}

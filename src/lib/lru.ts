/**
 * A small memo of recently used keys, at most `size` of them: two generations of `size / 2`. A hit
 * in the current one costs one lookup (a least-recently-used list costs a lookup, a delete and an
 * insert on every hit, and this runs several times per request); a hit in the previous one moves
 * the key into the current one; when the current one is full, it becomes the previous one. A key
 * asked for within the last `size / 2` distinct keys is always kept.
 */
export function memoize<V>(size: number, compute: (key: string) => V): (key: string) => V {
  const half = Math.max(1, Math.floor(size / 2));
  let current = new Map<string, V>();
  let previous = new Map<string, V>();
  const keep = (key: string, value: V) => {
    if (current.size >= half) {
      previous = current;
      current = new Map();
    }
    current.set(key, value);
    return value;
  };
  return (key) => {
    const hit = current.get(key);
    if (hit !== undefined) return hit;
    const old = previous.get(key);
    return keep(key, old !== undefined ? old : compute(key));
  };
}

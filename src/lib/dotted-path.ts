// Settings are named by dotted paths as Get Form shows them (`spamSettings.challenge`); the server's
// settings table and the dashboard's controls both read and write them so. No imports: the
// dashboard's bundle takes this file as it is.

/** The value at a dotted path of an object, or undefined. */
export function valueAt(obj: unknown, path: string): unknown {
  let v = obj;
  for (const part of path.split(".")) v = v == null ? undefined : (v as Record<string, unknown>)[part];
  return v;
}

/** Sets a dotted path of an object, making the objects on the way. */
export function setAt(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let at = obj;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

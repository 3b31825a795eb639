/** Time-ordered ids with a type prefix: sortable as strings, easy to tell apart in logs. */
export type IdPrefix = "own" | "key" | "frm" | "sub" | "ses" | "whk" | "msg" | "fil" | "tm" | "inv" | "pk" | "nte";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${Bun.randomUUIDv7().replaceAll("-", "")}`;
}

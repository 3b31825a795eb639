import { AppError } from "./errors";

/** The most fields one request may carry, a repeated name counted each time it comes (and, in a multipart body, the most parts). */
export const MAX_FIELDS = 1000;

export const tooManyFields = () =>
  new AppError(
    "TOO_MANY_FIELDS",
    `a request may carry at most ${MAX_FIELDS} fields (a repeated name counts each time it is sent; a multipart body at most ${MAX_FIELDS} parts)`,
  );

/**
 * A post's fields in the order sent, a repeated name (checkboxes, multi-selects) keeping every value
 * as a list. A Map, not an object: names are data, and `__proto__` or `constructor` must not reach
 * Object.prototype. Each value is added in constant time (a list is grown in place, never copied:
 * one name sent 30,000 times was quadratic), and the value past MAX_FIELDS is a 400 TOO_MANY_FIELDS.
 */
export class SentFields {
  readonly fields = new Map<string, unknown>();
  private count = 0;
  // The lists this reader made, so a value that was sent as a list (JSON) is never grown in place.
  private readonly lists = new Set<unknown[]>();

  add(name: string, value: unknown): void {
    if (++this.count > MAX_FIELDS) throw tooManyFields();
    const previous = this.fields.get(name);
    if (previous === undefined) this.fields.set(name, value);
    else if (Array.isArray(previous) && this.lists.has(previous)) previous.push(value);
    else {
      const list = Array.isArray(previous) ? [...previous, value] : [previous, value];
      this.lists.add(list);
      this.fields.set(name, list);
    }
  }
}

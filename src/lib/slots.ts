/**
 * What the stages of one submission add to it, each under a name of its own: the stage that writes
 * a slot declares it, and its writers and hooks read it back, typed. A new stage adds a slot, not a
 * field on the types every stage shares.
 */
export type Slots = Record<string, unknown>;

export interface Slot<T> {
  get(on: { stages: Slots }): T | undefined;
  set(on: { stages: Slots }, value: T): void;
}

const taken = new Set<string>();

/** Declares a slot; a name declared twice throws at import, so two stages cannot share one by mistake. */
export function slot<T>(name: string): Slot<T> {
  if (taken.has(name)) throw new Error(`the slot ${name} is declared twice`);
  taken.add(name);
  return {
    get: (on) => on.stages[name] as T | undefined,
    set: (on, value) => {
      on.stages[name] = value;
    },
  };
}

import type { ComponentChildren } from "preact";
import type { Control } from "../setting-controls";

/** The control of one kind (`text` and `textarea` share an entry of the union, so narrow by intersection). */
export type ControlOf<K extends Control["kind"]> = Control & { kind: K };

/** What every control is given: the setting's key and control, its draft value, and the problem found with it. */
export interface ControlProps<C extends Control = Control> {
  name: string;
  control: C;
  value: unknown;
  disabled: boolean;
  problem?: string;
  onChange: (value: unknown) => void;
}

export const helpId = (p: ControlProps) => (p.control.help ? `${p.name}-help` : undefined);
export const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
export const invalid = (p: ControlProps) => (p.problem ? ("true" as const) : undefined);
/** What every control's element carries: whether it is editable, its help and its problem. */
export const wired = (p: ControlProps) => ({
  disabled: p.disabled,
  "aria-describedby": helpId(p),
  "aria-invalid": invalid(p),
});

export function Help(p: ControlProps) {
  return p.control.help ? (
    <span id={helpId(p)} class="muted block small">
      {p.control.help}
    </span>
  ) : null;
}

export function Problem({ problem }: { problem?: string }) {
  return problem ? (
    <span class="field-error" role="alert">
      {problem}
    </span>
  ) : null;
}

/**
 * The labelled box of a control that is one input: its label, the input, its help and its problem.
 * The help and problem sit outside the <label>, so the input's name is its label alone (they are its description).
 */
export function Labelled({ p, indent, children }: { p: ControlProps; indent?: boolean; children: ComponentChildren }) {
  return (
    <div class={indent ? "field indent" : "field"}>
      <label class="field-label">
        <span>{p.control.label}</span>
        {children}
      </label>
      <Help {...p} />
      <Problem problem={p.problem} />
    </div>
  );
}

/** The labelled checkbox that turns a setting on (to what `toValue` makes of it) or off. */
export function Switch({
  p,
  on,
  toValue,
  name = `${p.name}.on`,
}: {
  p: ControlProps;
  on: boolean;
  toValue: (checked: boolean) => unknown;
  name?: string;
}) {
  // The help sits outside the <label>, so the checkbox's name is its label alone (the help is its description).
  return (
    <div class="switch">
      <label class="check">
        <input
          type="checkbox"
          name={name}
          checked={on}
          {...wired(p)}
          onChange={(e) => p.onChange(toValue(e.currentTarget.checked))}
        />
        <span>{p.control.label}</span>
      </label>
      <Help {...p} />
    </div>
  );
}

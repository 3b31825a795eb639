// Controls that edit a number or a time, each of which may be empty (null) where the setting allows.
import { Help, invalid, Labelled, Problem, text, wired, type ControlOf, type ControlProps } from "./props";

export function NumberControl(p: ControlProps<ControlOf<"number">>) {
  const c = p.control;
  return (
    <Labelled p={p}>
      <input
        class="input-small"
        name={p.name}
        type="number"
        min={c.min}
        max={c.max}
        step={c.step}
        required={!c.optional}
        value={p.value === null ? "" : String(p.value)}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e) === "" ? (c.optional ? null : p.value) : Number(text(e)))}
      />
    </Labelled>
  );
}

export function LimitControl(p: ControlProps<ControlOf<"limit">>) {
  return (
    <Labelled p={p}>
      <input
        class="input-small"
        name={p.name}
        type="number"
        min={1}
        step={1}
        value={p.value === null ? "" : String(p.value)}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e) === "" ? null : Number(text(e)))}
      />
    </Labelled>
  );
}

// A time as <input type="datetime-local"> shows it (the browser's local time), and back as ISO 8601.
const localTime = (iso: unknown): string => {
  if (typeof iso !== "string") return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const isoTime = (local: string): string | null => (local ? new Date(local).toISOString() : null);

export function TimeControl(p: ControlProps<ControlOf<"time">>) {
  return (
    <Labelled p={p}>
      <input
        name={p.name}
        type="datetime-local"
        value={localTime(p.value)}
        {...wired(p)}
        onInput={(e) => p.onChange(isoTime(text(e)))}
      />
    </Labelled>
  );
}

/** Kept forever (null), or deleted after a number of days. */
export function DaysControl(p: ControlProps<ControlOf<"days">>) {
  const { name, value, onChange } = p;
  return (
    <>
      <label class="check">
        <input
          type="radio"
          name={`${name}.mode`}
          value="forever"
          checked={value === null}
          disabled={p.disabled}
          onChange={() => onChange(null)}
        />
        <span>Keep them until I delete them</span>
      </label>
      <label class="check check-inline">
        <input
          type="radio"
          name={`${name}.mode`}
          value="days"
          checked={value !== null}
          disabled={p.disabled}
          onChange={() => onChange(365)}
        />
        <span>{p.control.label}</span>
        <input
          class="input-small"
          name={name}
          type="number"
          min={1}
          max={p.control.max}
          required={value !== null}
          disabled={value === null || p.disabled}
          value={value === null ? "" : String(value)}
          aria-label="Days to keep"
          aria-invalid={invalid(p)}
          onInput={(e) => onChange(Number(text(e)))}
        />
        <span>days</span>
      </label>
      <Help {...p} />
      <Problem problem={p.problem} />
    </>
  );
}

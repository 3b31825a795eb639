// Controls that edit text: a line, a paragraph, a choice, a list of lines, a name or URL that may be empty.
import { Labelled, text, wired, type ControlOf, type ControlProps } from "./props";

export function TextControl(p: ControlProps<ControlOf<"text">>) {
  return (
    <Labelled p={p}>
      <input
        name={p.name}
        value={String(p.value ?? "")}
        maxLength={p.control.maxLength}
        required={p.control.required}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e))}
      />
    </Labelled>
  );
}

export function TextareaControl(p: ControlProps<ControlOf<"textarea">>) {
  return (
    <Labelled p={p}>
      <textarea
        name={p.name}
        rows={p.name === "description" ? 2 : 5}
        maxLength={p.control.maxLength}
        required={p.control.required}
        value={String(p.value ?? "")}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e))}
      />
    </Labelled>
  );
}

export function SelectControl(p: ControlProps<ControlOf<"select">>) {
  return (
    <Labelled p={p}>
      <select name={p.name} value={String(p.value)} {...wired(p)} onChange={(e) => p.onChange(e.currentTarget.value)}>
        {p.control.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

/** A list edited as text, one item a line, kept as typed until the save (settings.tsx splits it). */
export function LinesControl(p: ControlProps<ControlOf<"lines">>) {
  return (
    <Labelled p={p}>
      <textarea
        name={p.name}
        rows={3}
        value={typeof p.value === "string" ? p.value : (p.value as string[]).join("\n")}
        placeholder={p.control.placeholder}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e))}
      />
    </Labelled>
  );
}

export function OptionalNameControl(p: ControlProps<ControlOf<"optional-name">>) {
  return (
    <Labelled p={p}>
      <input
        name={p.name}
        value={String(p.value ?? "")}
        maxLength={p.control.maxLength}
        placeholder={p.control.placeholder}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e).trim() || null)}
      />
    </Labelled>
  );
}

export function UrlControl(p: ControlProps<ControlOf<"url">>) {
  return (
    // One shown only under a switch (the confirmation's redirect) sits under it.
    <Labelled p={p} indent={p.control.shownWhen !== undefined}>
      <input
        name={p.name}
        type="url"
        value={String(p.value ?? "")}
        placeholder={p.control.placeholder}
        {...wired(p)}
        onInput={(e) => p.onChange(text(e).trim() || null)}
      />
    </Labelled>
  );
}

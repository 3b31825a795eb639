// Controls led by a switch: on or off, and for some, what the setting holds while it is on.
import type { FilesDraft } from "../setting-controls";
import { invalid, Problem, Switch, text, type ControlOf, type ControlProps } from "./props";

export function CheckboxControl(p: ControlProps<ControlOf<"checkbox">>) {
  return (
    <>
      <Switch p={p} on={p.value === true} toValue={(checked) => checked} name={p.name} />
      <Problem problem={p.problem} />
    </>
  );
}

/** A string or null: the switch, and the text while it is on. */
export function OptionalTextControl(p: ControlProps<ControlOf<"optional-text">>) {
  const on = p.value !== null;
  return (
    <>
      <Switch p={p} on={on} toValue={(checked) => (checked ? p.control.fallback : null)} />
      {on && (
        <label class="field indent">
          <span>Field name</span>
          <input
            name={p.name}
            value={String(p.value)}
            required
            pattern={p.control.pattern}
            disabled={p.disabled}
            aria-invalid={invalid(p)}
            onInput={(e) => p.onChange(text(e))}
          />
        </label>
      )}
      <Problem problem={p.problem} />
    </>
  );
}

/** formsvc's blue (null), or a colour of the owner's, picked. */
export function ColourControl(p: ControlProps<ControlOf<"colour">>) {
  const on = p.value !== null;
  return (
    <>
      <Switch p={p} on={on} toValue={(checked) => (checked ? p.control.fallback : null)} />
      {on && (
        <label class="field indent field-inline">
          <span>Colour</span>
          <input
            type="color"
            class="input-colour"
            name={p.name}
            value={String(p.value)}
            disabled={p.disabled}
            aria-invalid={invalid(p)}
            onInput={(e) => p.onChange(text(e))}
          />
          <code>{String(p.value)}</code>
        </label>
      )}
      <Problem problem={p.problem} />
    </>
  );
}

/** formsvc's own email (null), or a subject and text of the owner's. */
export function TemplateControl(p: ControlProps<ControlOf<"template">>) {
  const tpl = p.value as { subject: string; text: string } | null;
  return (
    <>
      <Switch p={p} on={tpl !== null} toValue={(checked) => (checked ? p.control.fallback : null)} />
      {tpl && (
        <>
          <label class="field indent">
            <span>Subject</span>
            <input
              name={`${p.name}.subject`}
              value={tpl.subject}
              maxLength={10_000}
              required
              disabled={p.disabled}
              onInput={(e) => p.onChange({ ...tpl, subject: text(e) })}
            />
          </label>
          <label class="field indent">
            <span>Text</span>
            <textarea
              name={`${p.name}.text`}
              rows={5}
              maxLength={10_000}
              required
              value={tpl.text}
              disabled={p.disabled}
              onInput={(e) => p.onChange({ ...tpl, text: text(e) })}
            />
          </label>
        </>
      )}
      <Problem problem={p.problem} />
    </>
  );
}

const mb = (bytes: number) => String(Math.round((bytes / 1048576) * 100) / 100);
const bytes = (e: Event) => Math.round(Number(text(e)) * 1048576);

/** Uploads refused (null), or the limits and types allowed. */
export function FilesControl(p: ControlProps<ControlOf<"files">>) {
  const files = p.value as FilesDraft | null;
  const set = (change: Partial<FilesDraft>) => p.onChange({ ...files, ...change });
  return (
    <>
      <Switch p={p} on={files !== null} toValue={(checked) => (checked ? p.control.fallback : null)} />
      {files && (
        <>
          <label class="field indent">
            <span>At most this many files per submission</span>
            <input
              class="input-small"
              name={`${p.name}.maxFiles`}
              type="number"
              min={1}
              max={100}
              required
              value={String(files.maxFiles)}
              onInput={(e) => set({ maxFiles: Number(text(e)) })}
            />
          </label>
          <label class="field indent">
            <span>Largest file (MB)</span>
            <input
              class="input-small"
              name={`${p.name}.maxFileBytes`}
              type="number"
              min={0.01}
              step="any"
              required
              value={mb(files.maxFileBytes)}
              onInput={(e) => set({ maxFileBytes: bytes(e) })}
            />
          </label>
          <label class="field indent">
            <span>All files of a submission together (MB)</span>
            <input
              class="input-small"
              name={`${p.name}.maxTotalBytes`}
              type="number"
              min={0.01}
              step="any"
              required
              value={mb(files.maxTotalBytes)}
              onInput={(e) => set({ maxTotalBytes: bytes(e) })}
            />
          </label>
          <label class="field indent">
            <span>Types allowed, one a line (image/* for any image)</span>
            <textarea
              name={`${p.name}.types`}
              rows={5}
              required
              value={files.types.join("\n")}
              onInput={(e) =>
                set({
                  types: text(e)
                    .split("\n")
                    .map((l) => l.trim())
                    .filter(Boolean),
                })
              }
            />
          </label>
        </>
      )}
      <Problem problem={p.problem} />
    </>
  );
}

import type { FieldRule, FieldType } from "../../../client/index";

// The field types in the order a person looks for them, with the words the editor shows.
const TYPES: readonly { value: FieldType; label: string }[] = [
  { value: "text", label: "Text" },
  { value: "textarea", label: "Long text" },
  { value: "email", label: "Email" },
  { value: "url", label: "Web address" },
  { value: "tel", label: "Phone" },
  { value: "number", label: "Number" },
  { value: "date", label: "Date" },
  { value: "checkbox", label: "Checkbox (or a group, with options)" },
  { value: "select", label: "Menu" },
  { value: "radio", label: "Radio buttons" },
  { value: "file", label: "File" },
  { value: "hidden", label: "Hidden" },
  { value: "page", label: "New step (the hosted page shows steps one at a time)" },
];
// Which of a rule's properties each type takes (the server's rules, src/modules/forms/fields.ts).
const TEXT: ReadonlySet<FieldType> = new Set(["text", "textarea", "email", "url", "tel", "hidden"]);
const OPTIONS: ReadonlySet<FieldType> = new Set(["select", "radio", "checkbox"]);
const RANGE: ReadonlySet<FieldType> = new Set(["number", "date"]);
const PLACEHOLDER: ReadonlySet<FieldType> = new Set(["text", "textarea", "email", "url", "tel", "number"]);
// What holds no value a condition could read (the server refuses a showIf naming one).
const NO_VALUE: ReadonlySet<FieldType> = new Set(["page", "file"]);

/** A condition as the editor holds it: which test, and its value as typed (for `in`, one a line). */
export interface DraftCondition {
  field: string;
  test: "equals" | "in" | "notEmpty";
  value: string;
}

/**
 * One field as the editor holds it: options as typed, one a line (blank lines kept, so Enter
 * works), limits as typed. `cleanFields` turns it into the rule the server takes.
 */
export interface DraftField extends Omit<FieldRule, "options" | "min" | "max" | "minLength" | "maxLength" | "showIf"> {
  options?: string;
  showIf?: DraftCondition;
  min?: string;
  max?: string;
  minLength?: string;
  maxLength?: string;
}

/** The editor's copy of a saved list. */
export const draftFields = (rules: FieldRule[] | null): DraftField[] =>
  (rules ?? []).map(({ options, min, max, minLength, maxLength, showIf, ...r }) => ({
    ...r,
    ...(showIf
      ? {
          showIf: {
            field: showIf.field,
            ...(showIf.in
              ? { test: "in" as const, value: showIf.in.join("\n") }
              : showIf.notEmpty
                ? { test: "notEmpty" as const, value: "" }
                : { test: "equals" as const, value: showIf.equals ?? "" }),
          },
        }
      : {}),
    ...(options ? { options: options.join("\n") } : {}),
    ...(min !== undefined ? { min: String(min) } : {}),
    ...(max !== undefined ? { max: String(max) } : {}),
    ...(minLength !== undefined ? { minLength: String(minLength) } : {}),
    ...(maxLength !== undefined ? { maxLength: String(maxLength) } : {}),
  }));

const count = (v: string | undefined) => (v?.trim() ? Number(v) : undefined);

/** The list the server takes: only the properties each field's type has, empty ones left out; no fields is null (any fields). */
export function cleanFields(draft: DraftField[]): FieldRule[] | null {
  if (draft.length === 0) return null;
  return draft.map((d) => {
    const r: FieldRule = { name: d.name.trim(), type: d.type };
    if (d.label?.trim()) r.label = d.label.trim();
    // A step break holds a label and nothing else.
    if (d.type === "page") return r;
    if (d.required && d.type !== "hidden") r.required = true;
    const c = d.showIf;
    if (c?.field) {
      const values = c.value
        .split("\n")
        .map((v) => v.trim())
        .filter(Boolean);
      r.showIf =
        c.test === "notEmpty"
          ? { field: c.field, notEmpty: true }
          : c.test === "in"
            ? { field: c.field, in: values }
            : { field: c.field, equals: c.value.trim() };
    }
    if (PLACEHOLDER.has(d.type) && d.placeholder?.trim()) r.placeholder = d.placeholder.trim();
    if (TEXT.has(d.type)) {
      if (count(d.minLength) !== undefined) r.minLength = count(d.minLength);
      if (count(d.maxLength) !== undefined) r.maxLength = count(d.maxLength);
    }
    if (RANGE.has(d.type)) {
      const limit = (v: string | undefined) => (!v?.trim() ? undefined : d.type === "number" ? Number(v) : v.trim());
      if (limit(d.min) !== undefined) r.min = limit(d.min);
      if (limit(d.max) !== undefined) r.max = limit(d.max);
    }
    const options = (d.options ?? "")
      .split("\n")
      .map((o) => o.trim())
      .filter(Boolean);
    if (OPTIONS.has(d.type) && options.length) {
      r.options = options;
      if (d.multiple && d.type !== "radio") r.multiple = true;
    }
    return r;
  });
}

/** The form's fields, one card each: add, remove, move up and down, and each field's rule. */
export function FieldEditor({
  value,
  onChange,
  problem,
}: {
  value: DraftField[];
  onChange: (v: DraftField[]) => void;
  problem?: string;
}) {
  const change = (i: number, patch: Partial<DraftField>) =>
    onChange(value.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  const move = (i: number, by: number) => {
    const next = [...value];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    onChange(next);
  };
  const add = () => {
    const taken = new Set(value.map((f) => f.name));
    let n = value.length + 1;
    while (taken.has(`field${n}`)) n++;
    onChange([...value, { name: `field${n}`, type: "text" }]);
  };
  return (
    <div class="field-editor" role="group" aria-label="Fields">
      {value.length === 0 && (
        <p class="muted">No fields listed: the form takes any fields, unchecked, and has no hosted page.</p>
      )}
      <ol class="field-list">
        {value.map((f, i) => {
          const who = f.name || `field ${i + 1}`;
          return (
            <li key={i} class="field-card" aria-label={`Field ${i + 1}: ${who}`}>
              <div class="field-row">
                <label class="field">
                  <span>Name</span>
                  <input
                    name={`fields.${i}.name`}
                    value={f.name}
                    required
                    maxLength={100}
                    pattern="[^_].*"
                    title="1 to 100 characters, not starting with _"
                    onInput={(e) => change(i, { name: e.currentTarget.value })}
                  />
                </label>
                <label class="field">
                  <span>Label</span>
                  <input
                    name={`fields.${i}.label`}
                    value={f.label ?? ""}
                    maxLength={200}
                    onInput={(e) => change(i, { label: e.currentTarget.value })}
                  />
                </label>
                <label class="field">
                  <span>Type</span>
                  <select
                    name={`fields.${i}.type`}
                    value={f.type}
                    onChange={(e) => change(i, { type: e.currentTarget.value as FieldType })}
                  >
                    {TYPES.map((t) => (
                      <option key={t.value} value={t.value}>
                        {t.label}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <div class="field-row">
                {f.type !== "hidden" && f.type !== "page" && (
                  <label class="check">
                    <input
                      type="checkbox"
                      name={`fields.${i}.required`}
                      checked={f.required === true}
                      onChange={(e) => change(i, { required: e.currentTarget.checked })}
                    />
                    <span>Required</span>
                  </label>
                )}
                {PLACEHOLDER.has(f.type) && (
                  <label class="field">
                    <span>Placeholder</span>
                    <input
                      name={`fields.${i}.placeholder`}
                      value={f.placeholder ?? ""}
                      maxLength={200}
                      onInput={(e) => change(i, { placeholder: e.currentTarget.value })}
                    />
                  </label>
                )}
                {TEXT.has(f.type) &&
                  (["minLength", "maxLength"] as const).map((k) => (
                    <label class="field" key={k}>
                      <span>{k === "minLength" ? "Min. length" : "Max. length"}</span>
                      <input
                        class="input-small"
                        type="number"
                        min={0}
                        step={1}
                        name={`fields.${i}.${k}`}
                        value={f[k] ?? ""}
                        onInput={(e) => change(i, { [k]: e.currentTarget.value })}
                      />
                    </label>
                  ))}
                {RANGE.has(f.type) &&
                  (["min", "max"] as const).map((k) => (
                    <label class="field" key={k}>
                      <span>{k === "min" ? "Lowest" : "Highest"}</span>
                      <input
                        class={f.type === "number" ? "input-small" : undefined}
                        type={f.type === "date" ? "date" : "number"}
                        step={f.type === "number" ? "any" : undefined}
                        name={`fields.${i}.${k}`}
                        value={f[k] ?? ""}
                        onInput={(e) => change(i, { [k]: e.currentTarget.value })}
                      />
                    </label>
                  ))}
              </div>
              {OPTIONS.has(f.type) && (
                <div class="field-row">
                  <label class="field">
                    <span>Options, one a line{f.type === "checkbox" ? " (none: a single checkbox)" : ""}</span>
                    <textarea
                      rows={3}
                      name={`fields.${i}.options`}
                      value={f.options ?? ""}
                      onInput={(e) => change(i, { options: e.currentTarget.value })}
                    />
                  </label>
                  {f.type !== "radio" && (
                    <label class="check">
                      <input
                        type="checkbox"
                        name={`fields.${i}.multiple`}
                        checked={f.multiple === true}
                        onChange={(e) => change(i, { multiple: e.currentTarget.checked })}
                      />
                      <span>Several may be chosen</span>
                    </label>
                  )}
                </div>
              )}
              {f.type !== "page" && (
                <ConditionEditor
                  i={i}
                  value={f.showIf}
                  earlier={value.slice(0, i).filter((e) => !NO_VALUE.has(e.type) && e.name)}
                  onChange={(showIf) => change(i, { showIf })}
                />
              )}
              <div class="actions">
                <button
                  type="button"
                  class="button"
                  disabled={i === 0}
                  aria-label={`Move ${who} up`}
                  onClick={() => move(i, -1)}
                >
                  ↑ Up
                </button>
                <button
                  type="button"
                  class="button"
                  disabled={i === value.length - 1}
                  aria-label={`Move ${who} down`}
                  onClick={() => move(i, 1)}
                >
                  ↓ Down
                </button>
                <button
                  type="button"
                  class="button button-danger"
                  aria-label={`Remove ${who}`}
                  onClick={() => onChange(value.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
      <button type="button" class="button" onClick={add} disabled={value.length >= 100}>
        + Add a field
      </button>
    </div>
  );
}

/** When a field shows: always, or while an earlier field's value is one value, one of several, or filled in. */
function ConditionEditor({
  i,
  value,
  earlier,
  onChange,
}: {
  i: number;
  value: DraftCondition | undefined;
  earlier: DraftField[];
  onChange: (v: DraftCondition | undefined) => void;
}) {
  const by = earlier.find((e) => e.name === value?.field);
  const choices = by?.options
    ?.split("\n")
    .map((o) => o.trim())
    .filter(Boolean);
  return (
    <div class="field-row">
      <label class="field">
        <span>Show only if</span>
        <select
          name={`fields.${i}.showIf.field`}
          value={value?.field ?? ""}
          onChange={(e) => {
            const field = e.currentTarget.value;
            onChange(field ? { test: "equals", value: "", ...value, field } : undefined);
          }}
        >
          <option value="">Always shown</option>
          {earlier.map((e) => (
            <option key={e.name} value={e.name}>
              {e.label || e.name}
            </option>
          ))}
          {value?.field && !by && <option value={value.field}>{value.field} (not an earlier field)</option>}
        </select>
      </label>
      {value?.field && (
        <label class="field">
          <span>Test</span>
          <select
            name={`fields.${i}.showIf.test`}
            value={value.test}
            onChange={(e) => onChange({ ...value, test: e.currentTarget.value as DraftCondition["test"] })}
          >
            <option value="equals">is</option>
            <option value="in">is one of</option>
            <option value="notEmpty">is filled in</option>
          </select>
        </label>
      )}
      {value?.field && value.test !== "notEmpty" && (
        <label class="field">
          <span>
            {value.test === "in"
              ? "Values, one a line"
              : by?.type === "checkbox" && !choices?.length
                ? "Value (true: ticked)"
                : "Value"}
          </span>
          {value.test === "in" ? (
            <textarea
              rows={3}
              name={`fields.${i}.showIf.value`}
              value={value.value}
              onInput={(e) => onChange({ ...value, value: e.currentTarget.value })}
            />
          ) : (
            <input
              name={`fields.${i}.showIf.value`}
              value={value.value}
              list={choices?.length ? `fields-${i}-choices` : undefined}
              maxLength={200}
              onInput={(e) => onChange({ ...value, value: e.currentTarget.value })}
            />
          )}
          {choices?.length ? (
            <datalist id={`fields-${i}-choices`}>
              {choices.map((o) => (
                <option key={o} value={o} />
              ))}
            </datalist>
          ) : null}
        </label>
      )}
    </div>
  );
}

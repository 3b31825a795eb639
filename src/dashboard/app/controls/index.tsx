// One small component per kind of setting control (setting-controls.ts). The map is typed by the
// kinds of `Control`, so a kind added there without a component here fails the type check.
import type { JSX } from "preact";
import type { Control } from "../setting-controls";
import { FieldEditor, type DraftField } from "../pages/field-editor";
import { DaysControl, LimitControl, NumberControl, TimeControl } from "./numbers";
import { Help, type ControlOf, type ControlProps } from "./props";
import { CheckboxControl, ColourControl, FilesControl, OptionalTextControl, TemplateControl } from "./switches";
import { LinesControl, OptionalNameControl, SelectControl, TextareaControl, TextControl, UrlControl } from "./text";

function FieldsControl(p: ControlProps<ControlOf<"fields">>) {
  return (
    <>
      <Help {...p} />
      <FieldEditor value={p.value as DraftField[]} onChange={p.onChange} problem={p.problem} />
    </>
  );
}

const BY_KIND: { [K in Control["kind"]]: (p: ControlProps<ControlOf<K>>) => JSX.Element } = {
  text: TextControl,
  textarea: TextareaControl,
  select: SelectControl,
  lines: LinesControl,
  "optional-name": OptionalNameControl,
  url: UrlControl,
  number: NumberControl,
  limit: LimitControl,
  time: TimeControl,
  days: DaysControl,
  checkbox: CheckboxControl,
  "optional-text": OptionalTextControl,
  colour: ColourControl,
  template: TemplateControl,
  files: FilesControl,
  fields: FieldsControl,
};

/** One setting's control, labelled, with its help text and the problem found with it. */
export function SettingControl(p: ControlProps) {
  // The map pairs each kind with its component; TypeScript cannot follow that pairing through the lookup.
  const Kind = BY_KIND[p.control.kind] as (p: ControlProps) => JSX.Element;
  return <Kind {...p} />;
}

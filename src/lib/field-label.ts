/** formsvc's own fields kept with a submission, by the names people see. */
const CONTROL_NAMES = new Map([
  ["_replyto", "Reply to"],
  ["_subject", "Subject"],
]);

/** A field's name made readable: `inquiry_type` → "Inquiry type", `firstName` → "First name", `homepageURL` → "Homepage URL". */
export function readableName(name: string): string {
  const known = CONTROL_NAMES.get(name.toLowerCase());
  if (known) return known;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_.-]+/)
    .filter(Boolean)
    // A word capitalised by camelCase is lowered; an acronym stays as written.
    .map((w, i) => (i === 0 ? w : w.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())));
  const text = words.join(" ");
  return text ? text[0]!.toUpperCase() + text.slice(1) : name;
}

/** How a person sees a field: its `fields` label when it has one, else its name made readable. */
export function fieldLabel(
  name: string,
  fields: readonly { name: string; label?: string }[] | null | undefined,
): string {
  return fields?.find((f) => f.name === name)?.label || readableName(name);
}

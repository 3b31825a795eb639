/**
 * What a row of the settings table is (forms/settings.ts composes the rows; spam, files and
 * notifications keep theirs beside their code), and how a value is checked: the row's input schema,
 * compiled once, then its `check` for what a schema cannot say. Imports nothing that imports the
 * settings table, so a module's rows can use it without a cycle.
 */
import { type Static, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { readFileSync } from "node:fs";
import { AppError } from "../../lib/errors";
import { checkTemplate } from "../../lib/template";
import type { Autoresponse, Form } from "./model";

/** Where a setting's value sits on a Form (the service's view): a field, or a field of its autoresponse. */
export type FormPath = Exclude<keyof Form, "autoresponse"> | `autoresponse.${keyof Autoresponse}`;

/** How a column holds the value: as it is, 0/1, or JSON text. */
export type Stored = "plain" | "boolean" | "json";

/** The command-line flags of a setting, for `forms create|update`. */
export interface CliFlag {
  /** commander's flag, e.g. "--challenge <kind>" or "--email-notifications". */
  flag: string;
  /** What the command line adds to the setting's help (setting-help.ts): its format, its default. */
  hint?: string;
  /** A value flag's text as the setting's value (default: the text itself); boolean flags give true. */
  parse?: (text: string) => unknown;
  /** Only on `forms update`. */
  updateOnly?: boolean;
  /** On `forms create`: required, or the value it has when left out (shown in the help). */
  create?: { required: true } | { default: string };
  /** The flag that clears the setting (`--no-honeypot`), with the value it sets; on update only unless `onCreate`. */
  no?: { flag?: string; help: string; value: unknown; onCreate?: boolean };
}

/** One row: a value Get Form shows, and (`I`) what a body may give for it. */
export interface Setting<S extends TSchema = TSchema, I extends TSchema = S> {
  /** What Get Form shows. */
  schema: S;
  /**
   * What POST and PATCH take, and so the request types (default: `schema`): every value Get Form
   * shows (`setting` checks it), with limits and a 400 that names the setting, and perhaps more
   * spellings of them (recipients: plain addresses too); null = read-only.
   */
  input?: I | null;
  field: FormPath;
  /** Get Form's value when it is not the field's own. */
  shown?: (form: Form) => Static<S>;
  /** The forms table's column, and how it holds the value; none for the repo's own columns (id, counters, times). */
  column?: string;
  stored?: Stored;
  /** A new form's value. */
  default?: Static<S>;
  /** What a schema cannot say (a template that parses, an origin): a sentence naming the setting, or nothing when fine. */
  check?: (value: never) => string | undefined;
  /** The value as kept (trimmed, normalised), once checked. */
  normalize?: (value: never) => unknown;
  /** A valid value other than the default, for the tests that set every setting. */
  example?: Static<S>;
  cli?: CliFlag | CliFlag[];
  /** A line of `forms show`: its label and text; left out where `when` says. */
  show?: { label: string; text(value: Static<S>, form: Form): unknown; when?: (form: Form) => boolean };
}

/** A JSON object of settings (`emailSettings`, `spamSettings`, …); null in Get Form where `nullWhen` says. */
export interface Group<M extends Record<string, Setting>, N extends boolean = boolean> {
  settings: M;
  description?: string;
  /** The 400 for a body that gives this object with a wrong member. */
  error: string;
  nullable?: N extends true ? { description: string; when: (form: Form) => boolean } : never;
}

export type Row = Setting | Group<Record<string, Setting>>;

// A body may give back what Get Form shows: the input's values include the schema's.
export const setting = <S extends TSchema, I extends TSchema = S>(
  row: Setting<S, I> & (Static<S> extends Static<I> ? unknown : { input: "must take every value Get Form shows" }),
): Setting<S, I> => row;
/** A value Get Form shows that no body may carry (ids, counters, times). */
export const readOnly = <S extends TSchema>(row: Omit<Setting<S>, "input">): Setting<S> & { input: null } => ({
  ...row,
  input: null,
});
export const group = <M extends Record<string, Setting>, N extends boolean = false>(g: Group<M, N>): Group<M, N> => g;

/**
 * A JSON Schema pattern: somewhere a character that trim() keeps and that is no control character
 * (written out: ECMA-262's and Python's \\s differ, and an outside fuzzer reads it as Python).
 */
export const NOT_BLANK =
  "[^\\u0000-\\u0020\\u007f\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]";

export const on = (v: boolean) => (v ? "on" : "off");
export const isWaitlist = (f: Form) => f.formType === "waitlist";

/** Why a template (its length checked by the schema) does not parse, in a sentence naming the setting. */
export const templateProblem = (what: string, template: string) => {
  try {
    checkTemplate(template);
  } catch (e) {
    return `${what} is not a valid template: ${(e as Error).message}`;
  }
  return undefined;
};

/** A `--…-file` flag: the file's JSON; a file that cannot be read or parsed is a 400 that names the setting. */
export function readJsonFile(what: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `${what}: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `${what}: ${file} is not JSON: ${(e as Error).message}`);
  }
}

/** A flag's JSON text; text that does not parse is a 400 that names the setting. */
export function parseJsonFlag(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("INVALID_PARAMETER", `${what}: not JSON: ${(e as Error).message}`);
  }
}

/** One problem with the settings given, said to each caller: the API's field names, or the CLI's flags. */
export interface SettingProblem {
  api: string;
  cli: string;
}

/** A 400 that names the API's fields; the CLI says `cliMessage`, which names its flags. */
export class SettingsError extends AppError {
  constructor(readonly problems: SettingProblem[]) {
    super("INVALID_PARAMETER", problems.map((p) => p.api).join("; "));
  }

  get cliMessage(): string {
    return this.problems.map((p) => p.cli).join("; ");
  }
}

/** The flags that set a row, as `forms create|update` declares them: "--max-links, --no-max-links". */
export function flagNames(row: Setting): string {
  return [row.cli ?? []]
    .flat()
    .flatMap((f) => {
      const long = f.flag.split(" ")[0]!;
      return f.no ? [long, f.no.flag ?? `--no-${long.slice(2)}`] : [long];
    })
    .join(", ");
}

/** A problem with one setting: `text` names its API field; the CLI adds its flags. */
export const problemOf = (row: Setting, text: string): SettingProblem => {
  const flags = flagNames(row);
  return { api: text, cli: flags ? `${text} (${flags})` : text };
};

type ErrorOption = string | ((e: { errors: { path: string }[] }) => string) | undefined;
const compiled = new WeakMap<Setting, TypeCheck<TSchema>>();

/** The row's input schema, compiled the first time a value is checked against it. */
function validator(row: Setting): TypeCheck<TSchema> {
  let check = compiled.get(row);
  if (!check) compiled.set(row, (check = TypeCompiler.Compile(row.input ?? row.schema)));
  return check;
}

/**
 * What is wrong with one setting's value, or undefined: first its input schema (the sentence of the
 * schema that failed, as the API answers it), then its check.
 */
export function settingProblem(key: string, row: Setting, value: unknown): SettingProblem | undefined {
  const check = validator(row);
  if (!check.Check(value)) {
    const first = check.Errors(value).First()!;
    const own = (first.schema as { error?: ErrorOption }).error;
    const path = `/${key.replaceAll(".", "/")}${first.path}`;
    const text =
      typeof own === "function"
        ? own({ errors: [{ path }] })
        : (own ??
          ((row.input ?? row.schema) as { error?: string }).error ??
          `${path.slice(1).replaceAll("/", ".")}: ${first.message}`);
    return problemOf(row, text);
  }
  const text = row.check?.(value as never);
  return text ? problemOf(row, text) : undefined;
}

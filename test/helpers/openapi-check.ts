import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/** An answer the OpenAPI document does not describe. */
export class ResponseMismatch extends Error {
  override name = "ResponseMismatch";
}

/** For `.catch` where a dropped connection is expected: null for that, but a mismatch still fails the test. */
export const droppedAsNull = (error: unknown): null => {
  if (error instanceof ResponseMismatch) throw error;
  return null;
};

/**
 * Checks HTTP answers against the server's own OpenAPI document: the operation is found by method
 * and path template; its status must be documented, with the documented headers that are required,
 * and a JSON body valid against the documented schema. Answers outside the document (unknown routes,
 * methods a path does not serve, /healthz, /metrics, /docs) are checked only when they are errors:
 * then their body must be the documented error shape.
 */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  private readonly validators = new Map<object, ValidateFunction>();
  private readonly routes: { regex: RegExp; literals: number; item: Record<string, any> }[];
  private readonly errorSchema: object;

  constructor(document: any) {
    addFormats(this.ajv);
    // JSON Schema's `iri`, which ajv-formats lacks, read as the server reads it (model.ts).
    this.ajv.addFormat("iri", (value: string) => URL.canParse(value));
    const doc = dereference(document, document);
    this.errorSchema = doc.components.schemas.Error;
    this.routes = Object.entries<Record<string, any>>(doc.paths)
      .map(([template, item]) => ({
        regex: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join("[^/]+")}$`,
        ),
        literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
        item,
      }))
      // The router prefers a fixed segment to a parameter: /forms/list before /forms/{formId}.
      .sort((a, b) => b.literals - a.literals);
  }

  /** Throws, naming method, path, status and what is wrong, when `res` disagrees with the document. */
  async check(method: string, url: string, res: Response): Promise<void> {
    const path = new URL(url).pathname;
    const where = `${method} ${path} → ${res.status}`;
    const fail = (problem: string): never => {
      throw new ResponseMismatch(`response does not match the OpenAPI document: ${where}: ${problem}`);
    };
    const text = method === "HEAD" ? "" : await res.clone().text();
    const trimmed = path.length > 1 ? path.replace(/\/$/, "") : path;
    const operation = this.routes.find((r) => r.regex.test(trimmed))?.item[method.toLowerCase()];
    if (!operation) {
      // A HEAD answer has no body to check.
      if (res.status < 400 || method === "HEAD") return;
      return this.validateJson(this.errorSchema, text, fail);
    }
    const documented =
      operation.responses[String(res.status)] ??
      operation.responses[`${String(res.status)[0]}XX`] ??
      operation.responses.default;
    if (!documented)
      fail(`status ${res.status} is not documented (documented: ${Object.keys(operation.responses).join(", ")})`);
    for (const [name, header] of Object.entries<any>(documented.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) fail(`header ${name} is missing`);
        continue;
      }
      const numeric = header.schema?.type === "integer" || header.schema?.type === "number";
      if (
        header.schema &&
        !this.validator(header.schema)(numeric && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value)
      ) {
        fail(
          `header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(this.validator(header.schema).errors, { dataVar: "value" })}`,
        );
      }
    }
    const content = documented.content as Record<string, { schema?: object }> | undefined;
    if (!content) {
      if (text !== "") fail(`no body is documented, got ${JSON.stringify(text.slice(0, 120))}`);
      return;
    }
    if (method === "HEAD") return;
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const media = content[type] ?? content["*/*"];
    if (!media)
      fail(`content type ${JSON.stringify(type)} is not documented (documented: ${Object.keys(content).join(", ")})`);
    if (type === "application/json" && media!.schema) this.validateJson(media!.schema, text, fail);
  }

  private validateJson(schema: object, text: string, fail: (problem: string) => never): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      fail(`body is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
    }
    const validate = this.validator(schema);
    if (!validate(body))
      fail(`${this.ajv.errorsText(validate.errors, { dataVar: "body" })}; body ${JSON.stringify(body).slice(0, 300)}`);
  }

  private validator(schema: object): ValidateFunction {
    let v = this.validators.get(schema);
    if (!v) this.validators.set(schema, (v = this.ajv.compile(schema)));
    return v;
  }
}

/** `node` with every local `$ref` ("#/components/…") replaced by what it points to. */
function dereference(node: any, root: any): any {
  if (Array.isArray(node)) return node.map((v) => dereference(v, root));
  if (node === null || typeof node !== "object") return node;
  if (typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
    const target = node.$ref
      .slice(2)
      .split("/")
      .reduce((at: any, part: string) => at?.[part.replaceAll("~1", "/").replaceAll("~0", "~")], root);
    if (target === undefined) throw new Error(`unresolved $ref ${node.$ref} in the OpenAPI document`);
    return dereference(target, root);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(v, root)]));
}

/** A fetch that checks every answer against the document `load` gives (asked once, on first use). */
export function checkedFetch(load: () => Promise<unknown>): (url: string, init?: RequestInit) => Promise<Response> {
  let checker: Promise<ResponseChecker> | undefined;
  return async (url, init = {}) => {
    const res = await fetch(url, init);
    checker ??= load().then((doc) => new ResponseChecker(doc));
    await (await checker).check((init.method ?? "GET").toUpperCase(), url, res);
    return res;
  };
}

import { realpathSync } from "node:fs";

/**
 * How the operator runs us, as words to paste into a shell: the compiled binary as it was typed
 * (`./formsvc`, `/usr/local/bin/formsvc`, `formsvc` from PATH), else the checkout's command.
 */
export function invocation(): string {
  // From a checkout, `npx` finds the Bun that `npm install` pinned.
  if (!Bun.main.startsWith("/$bunfs/")) return "npx bun src/main.ts";
  return shellWord(typedCommand(process.argv0, process.execPath));
}

/**
 * Inside the binary, `process.argv0` is what the shell was given and `process.execPath` the
 * binary's resolved path. The typed name is kinder (a relative `./formsvc` still works from the
 * folder the operator stands in) but only trusted when it leads back to this very binary: a
 * name found through PATH, or a path, that resolves to execPath. Anything else (`exec -a`, a
 * supervisor's made-up argv0) falls back to the absolute path.
 */
function typedCommand(argv0: string, execPath: string): string {
  const target = argv0.includes("/") ? argv0 : Bun.which(argv0);
  return target && sameFile(target, execPath) ? argv0 : execPath;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** The word as a POSIX shell reads it back: quoted when it holds anything but the usual path characters. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * A help text block of example command lines, each written as `me => line`, so the command
 * reads as the operator invoked it. Computed when the help is shown, not when the program is built.
 */
export function examples(lines: (me: string) => string[]): () => string {
  return () => {
    const list = lines(invocation());
    return `\n${list.length === 1 ? "Example" : "Examples"}:\n${list.map((l) => `  ${l}`).join("\n")}\n`;
  };
}

/** Ready-to-run curl commands for one form. */
export function curlExamples(baseUrl: string, key: string, formId: string): string[] {
  return [
    `curl -X POST ${baseUrl}/api/v1/forms/submit \\\n  -H "X-API-Key: ${key}" -H "Content-Type: application/json" \\\n  -d '{"formId":"${formId}","data":{"name":"Ada","email":"ada@example.com","message":"Hello"}}'`,
    `curl -H "X-API-Key: ${key}" ${baseUrl}/api/v1/forms/${formId}/submissions`,
    `curl -H "X-API-Key: ${key}" "${baseUrl}/api/v1/forms/${formId}/analytics?period=week"`,
  ];
}

/**
 * The one first-run path, printed by `serve` while no owner has a password: the setup link, then
 * the dashboard. Owners made on the command line are counted, as the link cannot log in as them.
 */
export function firstRunSteps(baseUrl: string, setupToken: string, ownersWithoutPassword: number): string {
  const lines = [
    `first run: set the first owner's email and password at ${baseUrl}/dashboard/setup?token=${setupToken}`,
    "  (the link works once, for 30 minutes; each start prints a new one)",
    `  then create a form in the dashboard and copy its snippet into your page: it posts to ${baseUrl}/f/{formId}`,
  ];
  const one = ownersWithoutPassword === 1;
  if (ownersWithoutPassword > 0)
    lines.push(
      `  ${ownersWithoutPassword} owner${one ? "" : "s"} made on the command line (init, keys create) ${one ? "has" : "have"} no password, and the link makes a new owner who sees none of their forms;`,
      `  to log in as one instead: ${invocation()} owners set-password EMAIL`,
    );
  return `${lines.join("\n")}\n`;
}

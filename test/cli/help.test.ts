import { describe, expect, test } from "bun:test";
import { runCli, runCliAsync } from "../helpers/harness";
import { SETTING_HELP } from "../../src/modules/forms/setting-help";

const GROUPS = ["keys", "forms", "submissions", "outbox", "mail"];

/** `formsvc help …`, which must succeed. */
function help(...words: string[]): string {
  const res = runCli(["help", ...words]);
  if (res.code !== 0) throw new Error(`formsvc help ${words.join(" ")} exited ${res.code}: ${res.stderr}`);
  return res.stdout;
}

/** The names listed under "Commands:" in a help text, without commander's own `help`. */
function commandsIn(text: string): string[] {
  const block = /\nCommands:\n([\s\S]*?)(\n\n|$)/.exec(text)?.[1] ?? "";
  return [...block.matchAll(/^  (\S+)/gm)].map((m) => m[1]!).filter((name) => name !== "help");
}

/** Lines under "Options:" that name a flag and nothing else. */
function undescribedOptions(text: string): string[] {
  const block = /\nOptions:\n([\s\S]*?)(\n\n|$)/.exec(text)?.[1] ?? "";
  return block.split("\n").filter((line) => /^  (-\w, )?--?[\w-]+( [<[][^>\]]+[>\]])?\s*$/.test(line));
}

describe("formsvc help", () => {
  test("help keys create, keys help create and keys create --help all show the create command's own help", () => {
    const own = help("keys", "create");
    expect(own).toStartWith("Usage: formsvc keys create [options]");
    expect(own).toContain("--owner <email>");
    expect(own).toContain("keys create --owner you@example.com --name website");
    expect(runCli(["keys", "help", "create"]).stdout).toBe(own);
    expect(runCli(["keys", "create", "--help"]).stdout).toBe(own);
    expect(help("forms", "update")).toStartWith("Usage: formsvc forms update [options] <id>");
  });

  test("help alone and help with a group keep showing the program's and the group's help", () => {
    const top = help();
    expect(top).toStartWith("Usage: formsvc [options] [command]");
    expect(top).toContain("Getting started:");
    expect(top).toBe(runCli(["--help"]).stdout);
    const group = help("keys");
    expect(group).toStartWith("Usage: formsvc keys [options] [command]");
    expect(commandsIn(group)).toEqual(["create", "list", "revoke"]);
  });

  test("Getting started is the one first-run path: serve, the setup link, the dashboard, a form posting to /f/{formId}", () => {
    const steps = /\nGetting started:\n([\s\S]*)$/.exec(help())?.[1] ?? "";
    expect(steps).toStartWith("  npx bun src/main.ts serve\n");
    expect(steps).toContain("open the setup link it prints");
    expect(steps).toContain("http://127.0.0.1:3000/dashboard");
    expect(steps).toContain("set your email and password");
    expect(steps).toContain("create a form");
    expect(steps).toContain("copy its snippet into your page: the form posts to http://127.0.0.1:3000/f/{formId}");
    // init is for scripts: an owner it makes is not the one the setup link makes.
    expect(steps).toContain("For scripts: npx bun src/main.ts init --owner EMAIL");
    expect(steps).not.toContain("init --owner you@example.com");
  });

  test("help for a command that does not exist says which and exits non-zero", () => {
    const res = runCli(["help", "keys", "rotate"]);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain("unknown command 'keys rotate'");
    expect(res.stderr).toContain("help keys");
    expect(runCli(["help", "frobnicate"]).code).not.toBe(0);
  });

  test.each(GROUPS)("the %s group's help ends with examples of its commands", (group) => {
    const examples = /\nExamples:\n((?: {2}.+\n)+)\s*$/.exec(help(group))?.[1]?.trimEnd().split("\n") ?? [];
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examples.some((line) => line.includes(`npx bun src/main.ts ${group} `))).toBe(true);
  });

  test("every option of every command has a description, the --no-… ones included", async () => {
    // Every command's help at once, in parallel subprocesses: one at a time takes seconds.
    const helpAsync = async (...words: string[]) => (await runCliAsync(["help", ...words])).stdout;
    const groups = commandsIn(help());
    const commands = (
      await Promise.all(groups.map(async (name) => commandsIn(await helpAsync(name)).map((sub) => [name, sub])))
    ).flat();
    const all = [...groups.map((g) => [g]), ...commands];
    expect(all).toContainEqual(["forms", "update"]);
    const texts = await Promise.all(all.map((words) => helpAsync(...words)));
    expect(texts.every((t) => t.startsWith("Usage: formsvc "))).toBe(true);
    const missing = all.flatMap((words, i) =>
      undescribedOptions(texts[i]!).map((line) => `${words.join(" ")}: ${line.trim()}`),
    );
    expect(missing).toEqual([]);
    expect(help("forms", "update")).toMatch(/--no-email-notifications\s+\S/);
    // About a hundred processes, each loading the command line, on CI's two cores: 38 s once on a loaded run.
  }, 120_000);

  test("forms update --help says each setting's own help, as the OpenAPI document and the dashboard do", () => {
    const text = help("forms", "update").replace(/\s+/g, " ");
    for (const [key, said] of Object.entries(SETTING_HELP))
      expect([key, text.includes(said.replace(/\.$/, ""))]).toEqual([key, true]);
  });
});

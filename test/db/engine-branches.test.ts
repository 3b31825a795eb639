import { expect, test } from "bun:test";

// Modules ask the engine's traits (db/sql.ts `EngineTraits`), so that what an engine means is said in one place.
test("engine branches live under src/db only: the code above asks the engine's traits", async () => {
  const branches: string[] = [];
  for await (const file of new Bun.Glob("src/**/*.{ts,tsx}").scan(".")) {
    if (file.startsWith("src/db/")) continue;
    const text = await Bun.file(file).text();
    for (const [i, line] of text.split("\n").entries())
      if (/\.engine\b|\bengine\s*[!=]==/.test(line)) branches.push(`${file}:${i + 1}`);
  }
  expect(branches).toEqual([]);
});

// Typed linting for what the type checker lets through in code this asynchronous: a promise nobody
// awaits or catches, or an async function handed where a plain callback is expected. Only rules
// that find bugs are on; layout is prettier's. Not on: await-thenable, as bun-types types
// `expect(p).rejects` as returning void where it must be awaited.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  { ignores: ["dist/", "bench/.work/", "test-artifacts/", "data/"] },
  {
    files: ["src/**/*.{ts,tsx}", "test/**/*.{ts,tsx}", "bench/**/*.ts", "build.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/no-implied-eval": "error",
      "@typescript-eslint/no-for-in-array": "error",
      "@typescript-eslint/no-array-delete": "error",
    },
  },
);

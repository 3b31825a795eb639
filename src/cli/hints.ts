/** How the operator runs us: the compiled binary by its path, else from a checkout. */
export function invocation(): string {
  // From a checkout, `npx` finds the Bun that `npm install` pinned.
  return Bun.main.startsWith("/$bunfs/") ? "formsvc" : "npx bun src/main.ts";
}

/** Ready-to-run curl commands for one form. */
export function curlExamples(baseUrl: string, key: string, formId: string): string[] {
  return [
    `curl -X POST ${baseUrl}/api/v1/forms/submit \\\n  -H "X-API-Key: ${key}" -H "Content-Type: application/json" \\\n  -d '{"formId":"${formId}","data":{"name":"Ada","email":"ada@example.com","message":"Hello"}}'`,
    `curl -H "X-API-Key: ${key}" ${baseUrl}/api/v1/forms/${formId}/submissions`,
    `curl -H "X-API-Key: ${key}" "${baseUrl}/api/v1/forms/${formId}/analytics?period=week"`,
  ];
}

/** What a newcomer does next, printed by `serve` while the database has no API key yet. */
export function firstRunSteps(baseUrl: string): string {
  const me = invocation();
  return [
    "",
    "No API keys yet. Next steps:",
    `  1. ${me} init --owner you@example.com          # an API key and a sample form in one go`,
    "     or, one at a time:",
    `     ${me} keys create --owner you@example.com`,
    `     ${me} forms create --owner you@example.com --name Contact --type contact`,
    "  2. submit to the form:",
    ...curlExamples(baseUrl, "<API_KEY>", "<FORM_ID>").slice(0, 1).map((c) => `     ${c.replaceAll("\n", "\n     ")}`),
    `  3. API docs: ${baseUrl}/docs`,
    "",
  ].join("\n");
}

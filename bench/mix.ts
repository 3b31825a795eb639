// Issue 31's submit mix, as wrk sends it: 120 bodies with distinct emails over the forms of one
// key, four user agents, and client addresses forwarded by a trusted proxy (the bench's own
// address). Node's and Bun's built-ins only: bench/scale16.ts runs it on a bare machine too.

export const MIX_BODIES = 120;
export const USER_AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
];
/** The server's environment for the mix: the bench's own address is the trusted proxy. */
export const MIX_ENV = { FORMSVC_TRUSTED_PROXIES: "127.0.0.1" };

/** A wrk script that cycles through MIX_BODIES bodies (a distinct email each) over the forms, the user agents and forwarded addresses. */
export function mixLua(key: string, forms: string[]): string {
  const bodies = Array.from({ length: MIX_BODIES }, (_, i) =>
    JSON.stringify({
      formId: forms[i % forms.length],
      data: {
        name: `Person ${i}`,
        email: `person${i}@example${i % 7}.com`,
        message: `Hello, this is message ${i}: I would like to hear more about your product.`,
        rating: (i % 5) + 1,
      },
    }),
  );
  // Public addresses of a few networks, as a proxy in front of formsvc would pass them on.
  const nets = ["81.2.69", "89.160.20", "216.160.83", "2.125.160", "175.16.199"];
  const addresses = Array.from({ length: MIX_BODIES }, (_, i) => `${nets[i % nets.length]}.${(i * 37) % 250}`);
  const lua = (xs: string[]) => `{ ${xs.map((x) => JSON.stringify(x)).join(", ")} }`;
  return (
    [
      `local bodies = ${lua(bodies)}`,
      `local agents = ${lua(USER_AGENTS)}`,
      `local addresses = ${lua(addresses)}`,
      "local n = 0",
      "request = function()",
      "  n = n + 1",
      `  local i = n % ${MIX_BODIES} + 1`,
      '  return wrk.format("POST", "/api/v1/forms/submit", {',
      `    ["Content-Type"] = "application/json",`,
      `    ["X-API-Key"] = ${JSON.stringify(key)},`,
      `    ["User-Agent"] = agents[n % ${USER_AGENTS.length} + 1],`,
      `    ["X-Forwarded-For"] = addresses[i],`,
      "  }, bodies[i])",
      "end",
    ].join("\n") + "\n"
  );
}

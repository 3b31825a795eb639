/**
 * The shared set-up of a test file (or a describe block): one server for its tests, started in
 * beforeAll and closed in afterAll, and owners seeded on it before the tests run.
 *
 *   const server = useServer({ config: { rateLimit: 100_000 } });
 *   const owner = server.seed("owner@example.com", { formType: "waitlist" });
 *
 * Both are stand-ins made when the file loads: their fields are there once the hooks have run, that
 * is in every test, and reading one earlier throws. Hooks run in the order they are registered, so a
 * beforeAll written below these sees the server and its owners. `send` and `submit` may be taken at
 * load (`const { send } = server`): they call the server once it runs.
 */
import { afterAll, afterEach, beforeAll } from "bun:test";
import { type FormFields, type Owner, seedOwner, startTestServer, type TestServer } from "./harness";
import { startSmtpSink, type SmtpSink } from "./smtp-sink";

export interface ServerFixture extends TestServer {
  /** An owner with a secret key and a form, seeded in a beforeAll of the scope where this is called (not inside a test: use seedOwner there). */
  seed(email?: string, form?: FormFields): Owner;
  /** With `smtp: true`, the SMTP sink the server sends to (started before it, closed after it). */
  smtp: SmtpSink;
}

/** Starts a server for the tests of this scope (file or describe) and closes it after them; `smtp: true` gives it an SMTP sink. */
export function useServer(opts: Parameters<typeof startTestServer>[0] & { smtp?: boolean } = {}): ServerFixture {
  const { smtp: withSmtp, ...start } = opts;
  const smtp = standIn<SmtpSink>("smtp");
  let started = false;
  const live = (): TestServer => server.target();
  const server = standIn<TestServer, Pick<ServerFixture, "seed" | "smtp" | "send" | "submit">>("server", {
    smtp: smtp.value,
    send: (...args) => live().send(...args),
    submit: (...args) => live().submit(...args),
    seed(email, form) {
      if (started) throw new Error("server.seed() seeds before the tests: inside a test, call seedOwner(server, ...)");
      const owner = standIn<Owner>(`owner ${email}`);
      beforeAll(async () => owner.fill(await seedOwner(server.value, email, form)));
      return owner.value;
    },
  });
  beforeAll(async () => {
    started = true;
    if (withSmtp) smtp.fill(await startSmtpSink());
    server.fill(
      await startTestServer(withSmtp ? { ...start, config: { ...start.config, smtpUrl: smtp.value.url } } : start),
    );
  });
  afterAll(async () => {
    await server.value.close();
    if (withSmtp) await smtp.value.close();
  });
  return server.value;
}

/**
 * An object that stands for a T made later: reads and writes go to the T once `fill` has run. Before
 * that, reading a field throws, so a test that runs without its set-up fails loudly, not on undefined.
 */
function standIn<T extends object, Own extends object = {}>(
  name: string,
  own: Own = {} as Own,
): { value: T & Own; fill(target: T): void; target(): T } {
  let target: T | undefined;
  const value = new Proxy(own, {
    get(o, p) {
      if (p in o) return (o as any)[p];
      if (target) return (target as any)[p];
      // Asked by await and by printers of any object: not a read of a field.
      if (typeof p === "symbol" || p === "then") return undefined;
      throw new Error(`${name}.${p} was read before its beforeAll ran`);
    },
    set(_o, p, v) {
      if (!target) throw new Error(`${name}.${String(p)} was set before its beforeAll ran`);
      (target as any)[p] = v;
      return true;
    },
  }) as T & Own;
  return {
    value,
    fill: (t) => void (target = t),
    target: () =>
      target ??
      (() => {
        throw new Error(`${name} was used before its beforeAll ran`);
      })(),
  };
}

/**
 * For tests that start their own servers, sinks and receivers: `defer(close)` as each is made, and
 * after each test they are closed, the last made first (a server before the sink it sends to).
 */
export function cleanupAfterEach(): (cleanup: () => Promise<void> | void) => void {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return (cleanup) => void cleanups.push(cleanup);
}

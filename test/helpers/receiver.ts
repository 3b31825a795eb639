/** One request a receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when it arrived. */
  at: number;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Answers the next requests with this script (n counts from 0 over the receiver's life). */
  script: (request: Received, n: number) => Response | Promise<Response>;
  /** Waits (bounded) until at least `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): void;
}

/** A webhook receiver on loopback (a Bun.serve on port 0) that records every request and answers as scripted (default 200). */
export function startReceiver(script: Receiver["script"] = () => new Response("ok")): Receiver {
  const requests: Received[] = [];
  const receiver = { requests, script } as Receiver;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const received: Received = {
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
        at: performance.now(),
      };
      requests.push(received);
      return receiver.script(received, requests.length - 1);
    },
  });
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${server.port}`,
    async waitFor(count: number, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} request(s), got ${requests.length}`);
        await Bun.sleep(10);
      }
      return requests;
    },
    close: () => void server.stop(true),
  });
}

/** Polls `read` until `predicate` holds (bounded), and returns what it read last. */
export async function until<T>(
  read: () => T | Promise<T>,
  predicate: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `condition not reached within ${timeoutMs} ms; last value: ${JSON.stringify(value)?.slice(0, 500)}`,
      );
    await Bun.sleep(20);
  }
}

/**
 * A response body made from text chunks as they are asked for: the next chunk is made only when
 * the client has taken the previous one (so a large export holds one page in memory, not the
 * file), and empty chunks (work between pages that produced nothing yet) let other requests run
 * before the work goes on. Closing the connection stops the chunks.
 */
export function textStream(chunks: AsyncIterator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const next = await chunks.next();
          if (next.done) return controller.close();
          if (next.value) return controller.enqueue(encoder.encode(next.value));
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
      async cancel() {
        await chunks.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

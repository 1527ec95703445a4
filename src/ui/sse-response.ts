/** Headers of a stream of server-sent events that no proxy buffers or caches. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** A `Response` of `stream`'s items, each encoded by `encode` into one or more whole server-sent events. */
export function sseResponse<T>(
  stream: ReadableStream<T>,
  encode: (item: T) => string,
  options: { readonly headers?: Readonly<Record<string, string>>; readonly end?: string } = {},
): Response {
  const encoder = new TextEncoder();
  const reader = stream.getReader();
  // One pull reads one item and encodes it; a pipeThrough stage per item would double the per-event cost.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(encoder.encode(encode(value)));
      if (options.end !== undefined) controller.enqueue(encoder.encode(options.end));
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { headers: { ...SSE_HEADERS, ...options.headers } });
}

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
  const body = stream.pipeThrough(
    new TransformStream<T, Uint8Array>({
      transform(item, controller) {
        controller.enqueue(encoder.encode(encode(item)));
      },
      flush(controller) {
        if (options.end !== undefined) controller.enqueue(encoder.encode(options.end));
      },
    }),
  );
  return new Response(body, { headers: { ...SSE_HEADERS, ...options.headers } });
}

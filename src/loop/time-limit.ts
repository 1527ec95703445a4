import { ToolTimeoutError } from '../errors.js';

/**
 * Runs `call` with a holder of a signal that fires when `parent`'s does or, with a `timeoutMs`, when the time is up
 * (without one, `parent` itself: its signal is read only if the call reads it). Past the time
 * limit it stops waiting and throws `ToolTimeoutError`: a tool that ignores its signal cannot hold the run, and what
 * it returns or throws later is dropped (its outcome is unknown, and the caller treats it so).
 */
export async function withinTimeLimit<T>(
  toolName: string,
  timeoutMs: number | undefined,
  parent: { readonly signal: AbortSignal },
  call: (source: { readonly signal: AbortSignal }) => T,
): Promise<Awaited<T>> {
  if (timeoutMs === undefined) return await call(parent);
  const controller = new AbortController();
  const parentSignal = parent.signal;
  const onParentAbort = () => controller.abort(parentSignal.reason);
  if (parentSignal.aborted) onParentAbort();
  else parentSignal.addEventListener('abort', onParentAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new ToolTimeoutError(toolName, timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const work = (async () => call(controller))();
  // A tool that fails after its time limit has nobody left to tell.
  work.catch(() => {});
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
    parentSignal.removeEventListener('abort', onParentAbort);
  }
}

// How a caller that answers for a run (an HTTP route, a chat click) waits for it: the decision is recorded first,
// then the run goes on here for up to a limit, and a failure after the limit goes to the caller's reporter.

export type Outcome<T> = { readonly done: true; readonly value: T } | { readonly done: false };

/** Waits for `work` up to `ms`; a rejection within the time is thrown, one after it is the caller's to catch. */
async function within<T>(work: Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for a run going on (`work`) up to `ms`, throwing a failure within that time; after it the run goes on
 * unwatched and a later failure goes to `onLateError`.
 */
export async function awaitRun<T>(
  work: Promise<T>,
  ms: number,
  onLateError: (error: unknown) => void,
): Promise<Outcome<T>> {
  const outcome = await within(work, ms);
  if (!outcome.done) work.catch(onLateError);
  return outcome;
}

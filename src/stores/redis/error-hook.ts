// An `onError` hook that cannot take down the reader or worker it reports for.

/** `hook`, with anything it throws swallowed: a throwing error hook must not take a reader or a worker down. */
export function guardedHook<Info>(hook: (info: Info) => void): (info: Info) => void {
  return (info) => {
    try {
      hook(info);
    } catch {
      // Nowhere left to report it.
    }
  };
}

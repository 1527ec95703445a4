// The base class of every error countersign throws, and the guard that recognises one across realms.
import type { CountersignErrorCode } from './codes.js';

/**
 * Base class of every error countersign throws. `code` is stable and safe to
 * branch on; `fault` says whether the caller (`'user'`) or countersign
 * (`'library'`) should fix it.
 *
 * @example
 * try {
 *   withApprovalResponse(snapshot, { approvalId: 'nope', approved: true }, { agent });
 * } catch (error) {
 *   if (isCountersignError(error)) console.log(error.code, error.message);
 * }
 */
export class CountersignError extends Error {
  readonly code: CountersignErrorCode;
  readonly fault: 'user' | 'library' | 'environment';

  constructor(
    code: CountersignErrorCode,
    message: string,
    options: { cause?: unknown; fault?: 'user' | 'library' | 'environment' } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.fault = options.fault ?? 'user';
  }
}

/**
 * True for any countersign error, also across realms and duplicated installs
 * (compares `name` and `code`, not only the prototype chain).
 *
 * @example
 * if (isCountersignError(error) && error.code === 'approval_expired') retryLater();
 */
export function isCountersignError(error: unknown): error is CountersignError {
  return (
    error instanceof CountersignError ||
    (error instanceof Error &&
      typeof (error as { code?: unknown }).code === 'string' &&
      /Error$/.test(error.name) &&
      'fault' in error)
  );
}

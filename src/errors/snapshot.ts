// Data that cannot be read or encoded: a serialized snapshot, a value nested too deep to digest or show.
import { CountersignError } from './base.js';

/** A serialized snapshot could not be read. */
export class SnapshotError extends CountersignError {
  readonly path: string | undefined;
  readonly supportedVersions: readonly number[];

  constructor(message: string, details: { path?: string; supportedVersions: readonly number[]; cause?: unknown }) {
    super('invalid_snapshot', message, { cause: details.cause });
    this.path = details.path;
    this.supportedVersions = details.supportedVersions;
  }
}

/**
 * A value nests too deep to be encoded for a digest or a display copy (for
 * example arguments read back from a store written before calls were limited
 * in depth). Nothing was signed, shown or run with it.
 */
export class ValueTooDeepError extends CountersignError {
  readonly maxDepth: number;
  readonly path: string;

  constructor(what: string, maxDepth: number, path: string) {
    super(
      'value_too_deep',
      `${what} nests deeper than ${maxDepth} levels (at ${path || '(root)'}), so it cannot be encoded safely. ` +
        'Deny or cancel the call it belongs to; arguments that deep are refused as invalid calls.',
    );
    this.maxDepth = maxDepth;
    this.path = path;
  }
}

import { ApprovalAppError, isCountersignError } from '../errors.js';

/** The `code` of a countersign error or of the approval app's refusal, else undefined. */
export function codeOf(error: unknown): string | undefined {
  if (isCountersignError(error) || error instanceof ApprovalAppError) return error.code;
  return undefined;
}

import { isCountersignError } from '../errors.js';

/** The approval app refused a request of the CLI (`--url`): its problem `code` and HTTP status, and its detail. */
export class ApprovalAppError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, status: number, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}

/** The `code` of a countersign error or of the approval app's refusal, else undefined. */
export function codeOf(error: unknown): string | undefined {
  if (isCountersignError(error) || error instanceof ApprovalAppError) return error.code;
  return undefined;
}

// The command line's own refusals: a command line it cannot act on, and the approval app's answer to `--url`.

/** A command line the CLI cannot act on; it prints the usage and exits with 2. */
export class UsageError extends Error {}

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

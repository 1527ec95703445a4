/** A command line the CLI cannot act on; it prints the usage and exits with 2. */
export class UsageError extends Error {}

import type { Runtime } from '../runtime/runtime.js';

/** What the command line reads and writes, passed in so it runs inside tests as it does in a terminal. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly loadRuntime: (path: string) => Promise<Runtime>;
  readonly env: Record<string, string | undefined>;
  /** Stops a long-running command (`worker`); the CLI ties it to SIGINT and SIGTERM. */
  readonly signal?: AbortSignal;
}

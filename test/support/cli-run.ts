// The CLI run in this process with its streams captured: what a test of a command reads back.
import { PassThrough, Readable } from 'node:stream';
import type { Runtime } from 'countersign';
import { runCli } from '../../src/cli/run-cli.js';

export interface CliRunOptions {
  /** The runtime the CLI's `--runtime` module would load; left out, loading one fails (the CLI over `--url` loads none). */
  readonly runtime?: Runtime | undefined;
  /** What the person types, all at once. */
  readonly input?: string;
  readonly env?: Record<string, string | undefined>;
  readonly signal?: AbortSignal;
}

/** Runs `countersign <argv>` and resolves with its exit code and what it wrote to stdout and stderr. */
export async function runCliCaptured(
  argv: string[],
  options: CliRunOptions = {},
): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const { runtime } = options;
  const code = await runCli(argv, {
    stdout,
    stderr,
    stdin: Readable.from([options.input ?? '']),
    env: options.env ?? {},
    loadRuntime: async () => runtime ?? Promise.reject(new Error('no runtime: this test gives the CLI none')),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, out, err };
}

// `countersign verify-audit FILE --jwks URL|FILE`: checks an exported audit offline against the published receipt
// keys. Needs no runtime, token or secret: an auditor runs it with what the company handed over.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError, UsageError } from '../errors.js';
import { verifyAudit } from '../runtime/receipts/verify-audit.js';

export const VERIFY_USAGE = `  verify-audit FILE --jwks URL|FILE [--json]
                                              check an exported audit (the JSON of show RUN_ID --json or
                                              GET /runs/RUN_ID, or an array of them) against the receipt keys
                                              (the app's /.well-known/jwks.json): each entry's signature, the
                                              chain of each run's entries, each quorum's votes. Exit 0 when
                                              every entry verifies, 1 when one does not`;

/** The largest audit file or key set read: an audit of thousands of decisions fits many times over. */
const MAX_BYTES = 64 * 1024 * 1024;

export interface VerifyIo {
  readonly stdout: NodeJS.WritableStream;
  /** Fetches the key set when --jwks is a URL. Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

function parsedJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(`verify-audit: ${what} is not JSON.`);
  }
}

async function fileText(path: string, what: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(`verify-audit: cannot read ${what} ${path} (${error.code ?? error.message}).`);
  });
  if (text.length > MAX_BYTES) throw new ConfigError(`verify-audit: ${what} ${path} is over ${MAX_BYTES} bytes.`);
  return text;
}

async function keySetText(source: string, io: VerifyIo): Promise<string> {
  if (!/^https?:\/\//i.test(source)) return fileText(source, 'the key set');
  const response = await (io.fetch ?? fetch)(source, { headers: { accept: 'application/json' }, redirect: 'error' });
  if (!response.ok) throw new ConfigError(`verify-audit: ${source} answered ${response.status}, not a key set.`);
  const text = await response.text();
  if (text.length > MAX_BYTES) throw new ConfigError(`verify-audit: the key set at ${source} is too large.`);
  return text;
}

const OPTIONS = { jwks: { type: 'string' }, json: { type: 'boolean' } } as const;

function commandLine(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Runs `verify-audit` with the arguments after the command name. Returns the exit code: 0 every entry verified,
 * 1 one did not (each problem printed), 2 a usage mistake (thrown as a `UsageError`).
 */
export async function runVerifyAudit(argv: readonly string[], io: VerifyIo): Promise<number> {
  const { values, positionals } = commandLine(argv);
  if (positionals.length !== 1 || values.jwks === undefined)
    throw new UsageError('verify-audit takes one audit file and --jwks URL|FILE');
  const audit = parsedJson(await fileText(positionals[0]!, 'the audit'), 'the audit');
  const keySet = parsedJson(await keySetText(values.jwks, io), 'the key set');
  const result = verifyAudit(audit, keySet);
  const lines = result.ok
    ? [`ok: ${result.entries} entries of ${result.runs} run(s) verified`]
    : [
        ...result.problems.map((problem) => `${problem.runId} #${problem.index} ${problem.code}: ${problem.message}`),
        `FAILED: ${result.problems.length} problem(s) in ${result.entries} entries of ${result.runs} run(s)`,
      ];
  io.stdout.write(`${values.json === true ? JSON.stringify(result, null, 2) : lines.join('\n')}\n`);
  return result.ok ? 0 : 1;
}

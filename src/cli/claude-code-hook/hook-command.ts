// `countersign hook claude-code`: Claude Code's PreToolUse (or PermissionRequest) command hook. Exit codes as its
// hooks reference says them: 0 with the answer as JSON on stdout; 1 (a non-blocking error: Claude Code goes on with
// its own permission check) when stdin is not a hook input or countersign cannot be reached; 2 (a blocking error: the
// call does not run, and Claude reads stderr) when the hook itself is misconfigured.
import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import type { CliIo } from '../cli-io.js';
import { inert } from '../format.js';
import { readRulesFile } from '../rules-file.js';
import { parseHookInput, readHookStdin } from './hook-input.js';
import { hookOutput } from './hook-output.js';
import { type HookRuntime, redisHookRuntime } from './hook-runtime.js';
import { hookVerdict } from './hook-verdict.js';

export const HOOK_USAGE = `  hook claude-code (--redis URL [--prefix P] [--rules FILE] | --runtime PATH) [--wait-ms N]
                                              Claude Code's PreToolUse or PermissionRequest command hook:
                                              reads the hook's JSON on stdin and asks about the tool call
                                              as a countersign request (rules in FILE allow or deny at once;
                                              the session's grants apply), waits up to N ms (50000) and
                                              answers allow, deny, or ask (Claude Code's own prompt) once the
                                              wait ran out, withdrawing the request. COUNTERSIGN_DECISION_SECRET
                                              signs the requests on --redis`;

/** Answers within the 60-second `timeout` the documented settings give the hook (Claude Code's default varies by release). */
const DEFAULT_WAIT_MS = 50_000;

const options = {
  redis: { type: 'string' },
  prefix: { type: 'string' },
  rules: { type: 'string' },
  runtime: { type: 'string' },
  'wait-ms': { type: 'string' },
} as const;

type HookValues = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

/** Runs the hook once: one hook input on stdin, one answer on stdout. Returns the exit code. */
export async function runClaudeCodeHook(argv: readonly string[], io: CliIo): Promise<number> {
  const say = (text: string) => io.stderr.write(`${inert(`countersign hook claude-code: ${text}`)}\n`);
  let connection: HookRuntime | undefined;
  try {
    const { values, waitMs } = checkedArgs(argv, io.env);
    const input = parseHookInput(await readHookStdin(io.stdin));
    connection = await connect(values, io);
    const verdict = await hookVerdict(connection.runtime, input, {
      waitMs,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    io.stdout.write(`${inert(JSON.stringify(hookOutput(input.hook_event_name, verdict)))}\n`);
    return 0;
  } catch (error) {
    say((error as Error)?.message ?? String(error));
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await connection?.close();
  }
}

/** The command line, checked: a `UsageError` names what is wrong. */
function checkedArgs(argv: readonly string[], env: Record<string, string | undefined>) {
  let parsed: { values: HookValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'claude-code')
    throw new UsageError('hook takes the agent it serves: hook claude-code');
  const runtime = values.runtime ?? (env['COUNTERSIGN_RUNTIME'] || undefined);
  if ((values.redis === undefined) === (runtime === undefined))
    throw new UsageError(
      'say where the requests live: --redis URL (with the approval app on that Redis) or --runtime PATH',
    );
  if (runtime !== undefined && (values.rules !== undefined || values.prefix !== undefined))
    throw new UsageError(
      '--rules and --prefix go with --redis; a --runtime module sets its own requests.policy and store',
    );
  const waitMs = values['wait-ms'] === undefined ? DEFAULT_WAIT_MS : Number(values['wait-ms']);
  if (!Number.isInteger(waitMs) || waitMs < 1000 || waitMs > 3_600_000)
    throw new UsageError(
      "--wait-ms must be a whole number of milliseconds from 1000 to 3600000, below the hook's timeout",
    );
  return { values: { ...values, ...(runtime === undefined ? {} : { runtime }) }, waitMs };
}

/** The runtime the hook asks: on --redis, or the --runtime module's. */
async function connect(values: HookValues, io: CliIo): Promise<HookRuntime> {
  if (values.runtime !== undefined) return { runtime: await io.loadRuntime(values.runtime), close: async () => {} };
  const rules = values.rules === undefined ? undefined : await readRulesFile(values.rules);
  const decisionSecret = io.env['COUNTERSIGN_DECISION_SECRET'];
  return redisHookRuntime(values.redis!, {
    ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
    ...(rules === undefined ? {} : { rules }),
    ...(decisionSecret ? { decisionSecret } : {}),
  });
}

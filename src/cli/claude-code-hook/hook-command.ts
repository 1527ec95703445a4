// `countersign hook claude-code`: Claude Code's PreToolUse (or PermissionRequest) command hook. Exit codes as its
// hooks reference says them: 0 with the answer as JSON on stdout; 1 (a non-blocking error: Claude Code goes on with
// its own permission check) when stdin is not a hook input or countersign fails (an approval app that does not
// answer, a module that does not load); 2 (a blocking error: the call does not run, and Claude reads stderr) when the
// hook itself is misconfigured.
import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import type { CliIo } from '../cli-io.js';
import { inert } from '../format.js';
import { readRulesFile } from '../rules-file.js';
import { parseHookInput, readHookStdin } from './hook-input.js';
import { hookOutput } from './hook-output.js';
import { type HookRuntime, redisHookRuntime } from './hook-runtime.js';
import { hookVerdict } from './hook-verdict.js';
import { httpRequests } from './http-requests.js';

export const HOOK_USAGE = `  hook claude-code (--redis URL [--prefix P] [--rules FILE] | --url URL | --runtime PATH) [--wait-ms N]
                                              Claude Code's PreToolUse or PermissionRequest command hook:
                                              reads the hook's JSON on stdin and asks about the tool call
                                              as a countersign request on that Redis (rules in FILE allow or
                                              deny at once; COUNTERSIGN_DECISION_SECRET signs), in the
                                              approval app at URL (token in COUNTERSIGN_TOKEN) or in the
                                              module's runtime; the session's grants apply. Waits up to N ms
                                              (50000) and answers allow, deny, or ask (Claude Code's own
                                              prompt) once the wait ran out, withdrawing the request`;

/** Answers within the 60-second `timeout` the documented settings give the hook (Claude Code's default varies by release). */
const DEFAULT_WAIT_MS = 50_000;

const options = {
  redis: { type: 'string' },
  prefix: { type: 'string' },
  rules: { type: 'string' },
  runtime: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  'wait-ms': { type: 'string' },
} as const;

type HookValues = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

/** Runs the hook once: one hook input on stdin, one answer on stdout. Returns the exit code. */
export async function runClaudeCodeHook(argv: readonly string[], io: CliIo): Promise<number> {
  const say = (text: string) => io.stderr.write(`${inert(`countersign hook claude-code: ${text}`)}\n`);
  let connection: HookRuntime | undefined;
  try {
    const { values, source, waitMs } = checkedArgs(argv, io.env);
    const input = parseHookInput(await readHookStdin(io.stdin));
    connection = await connect(source, values, io);
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

/** Where the requests live: a Redis (with its rules), a running approval app, or a runtime module. */
type Source =
  | { readonly redis: string }
  | { readonly url: string; readonly token: string }
  | { readonly runtime: string };

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
  const waitMs = values['wait-ms'] === undefined ? DEFAULT_WAIT_MS : Number(values['wait-ms']);
  if (!Number.isInteger(waitMs) || waitMs < 1000 || waitMs > 3_600_000)
    throw new UsageError(
      "--wait-ms must be a whole number of milliseconds from 1000 to 3600000, below the hook's timeout",
    );
  return { values, source: sourceOf(values, env), waitMs };
}

/** Where the requests live, from the flags, else COUNTERSIGN_URL (with COUNTERSIGN_TOKEN) or COUNTERSIGN_RUNTIME. */
function sourceOf(values: HookValues, env: Record<string, string | undefined>): Source {
  if ([values.redis, values.url, values.runtime].filter((value) => value !== undefined).length > 1)
    throw new UsageError('give one of --redis URL, --url URL and --runtime PATH');
  if (values.redis !== undefined) return { redis: values.redis };
  if (values.rules !== undefined || values.prefix !== undefined)
    throw new UsageError(
      '--rules and --prefix go with --redis; an approval app or a runtime module has its own request policy and store',
    );
  const url = values.url ?? (values.runtime === undefined ? env['COUNTERSIGN_URL'] || undefined : undefined);
  if (url !== undefined) {
    const token = values.token ?? (env['COUNTERSIGN_TOKEN'] || undefined);
    if (token === undefined)
      throw new UsageError(`the approval app at ${url} needs its bearer token: COUNTERSIGN_TOKEN (or --token)`);
    return { url, token };
  }
  const runtime = values.runtime ?? (env['COUNTERSIGN_RUNTIME'] || undefined);
  if (runtime === undefined)
    throw new UsageError(
      'say where the requests live: --redis URL (with the approval app on that Redis), --url URL (a running approval app, with COUNTERSIGN_TOKEN) or --runtime PATH',
    );
  return { runtime };
}

/** What the hook asks: a runtime on --redis, the approval app at --url, or the --runtime module's runtime. */
async function connect(source: Source, values: HookValues, io: CliIo): Promise<HookRuntime> {
  if ('url' in source) return { runtime: httpRequests(source), close: async () => {} };
  if ('runtime' in source) return { runtime: await io.loadRuntime(source.runtime), close: async () => {} };
  const rules = values.rules === undefined ? undefined : await readRulesFile(values.rules);
  const decisionSecret = io.env['COUNTERSIGN_DECISION_SECRET'];
  return redisHookRuntime(source.redis, {
    ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
    ...(rules === undefined ? {} : { rules }),
    ...(decisionSecret ? { decisionSecret } : {}),
  });
}

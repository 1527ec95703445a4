import { parseArgs } from 'node:util';
import { codeOf } from './error-code.js';
import type { CliIo } from './cli-io.js';
import { CLI_OPTIONS, readFlags } from './cli-flags.js';
import { COMMANDS, RUNTIME_COMMANDS } from './commands.js';
import { inert } from './format.js';
import { GATEWAY_USAGE, runMcpGateway } from './mcp-gateway-command.js';
import { HOOK_USAGE, runClaudeCodeHook } from './claude-code-hook/hook-command.js';
import { httpApprovals } from './http-approvals.js';
import { runtimeApprovals } from './runtime-approvals.js';
import { UsageError } from '../errors.js';
import { runVerifyAudit, VERIFY_USAGE } from './verify-audit-command.js';
import { TOKENS_USAGE } from './tokens-command.js';

export const USAGE = `usage: countersign <command> [options]

Reads and decides the approvals of a running approval app over HTTP (--url URL --token TOKEN,
or COUNTERSIGN_URL and COUNTERSIGN_TOKEN; e.g. npm start's, at http://127.0.0.1:3000), or of a
runtime from a module you write (--runtime PATH or COUNTERSIGN_RUNTIME) that exports it as
\`runtime\` or default, e.g. createRuntime({ agents, store: createRedisStore({ redis }) }).
resume, inbox-link, sweep, recover, worker and tokens need --runtime. With a personal token as
--token, decisions are recorded as its person (leave --by out).

commands:
  pending [--agent NAME] [--session ID] [--limit N]
                                              list pending approvals, soonest expiry first
  show RUN_ID                                 a run: status, pending approvals, audit
  approve RUN_ID APPROVAL_ID [--by NAME] [--reason TEXT] [--scope once|run|session|agent] [--ttl MS] [--uses N] [--args JSON]
          [--mode inline|record|enqueue]
  deny RUN_ID APPROVAL_ID [--by NAME] [--reason TEXT] [--scope once|session|agent] [--ttl MS] [--uses N] [--mode inline|record|enqueue]
                                              --scope session|agent makes a grant for later runs (agent needs --ttl)
  grants [--session ID] [--agent NAME]        list live grants
  revoke-grant GRANT_ID                       revoke a grant at once
  clear-session SESSION_ID                    revoke every grant of a session
  dismiss RUN_ID APPROVAL_ID [--by NAME] [--reason TEXT] [--mode inline|record|enqueue]
                                              close a request without a decision (source dismissed): it does not run
  review [--by NAME] [--agent NAME] [--session ID] [--mode inline|record|enqueue]
                                              pending approvals one card at a time, one key each:
                                              y approve once, s approve for this run, n deny (asks a
                                              reason), d dismiss (closed without a decision), e edit the
                                              arguments in $EDITOR, v view all the arguments, j skip,
                                              q quit. --json prints the cards as JSON Lines and decides
                                              nothing
  resume RUN_ID                               carry on a run whose decisions are recorded (--mode record)
  inbox-link REVIEWER [--base-url URL] [--expires-in MS]
                                              a reviewer's inbox link: every pending approval, decided as
                                              REVIEWER, for MS milliseconds (8 hours); the runtime needs links
  cancel RUN_ID [--reason TEXT]
  sweep                                       apply onExpire to expired approvals
  recover                                     finish or hand back runs a dead process left
  worker [--concurrency N] [--prefix P] [--every MS]
                                              resume runs queued with mode 'enqueue' (jobs in the Redis
                                              at REDIS_URL), sweeping and recovering every MS (30000)
${TOKENS_USAGE}
${VERIFY_USAGE}
${GATEWAY_USAGE}
${HOOK_USAGE}

options: --url URL and --token TOKEN (the approval app; the token from COUNTERSIGN_TOKEN keeps it out of
ps), --runtime PATH (a .ts module loads with tsx installed in the project), --json (machine-readable
output), --help. Colour only on a terminal, never with NO_COLOR set.`;

/**
 * The command-line entry, with its input and output passed in so it can run
 * inside tests. Returns the exit code: 0 done, 1 refused or failed, 2 usage.
 *
 * @example
 * const code = await runCli(['pending'], { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, loadRuntime });
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Every byte the CLI prints passes inert(): text, --json output and error messages carry other people's strings.
  const print = (text: string) => io.stdout.write(`${inert(text)}\n`);
  const printError = (text: string) => io.stderr.write(`${inert(text)}\n`);
  // The gateway needs no runtime module and has options of its own.
  if (argv[0] === 'mcp-gateway')
    return runMcpGateway(argv.slice(1), io).catch((error: unknown) => failed(error, printError));
  // A coding agent's hook: its exit codes and its output are the agent's protocol, not the CLI's.
  if (argv[0] === 'hook') return runClaudeCodeHook(argv.slice(1), io);
  // An auditor's check: no approval app or runtime, only files (or the key set's URL).
  if (argv[0] === 'verify-audit')
    return runVerifyAudit(argv.slice(1), { stdout: io.stdout }).catch((error: unknown) => failed(error, printError));
  let parsed: ReturnType<typeof parseArgs<{ options: typeof CLI_OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: CLI_OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    printError(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    print(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const json = values.json === true;
  try {
    const flags = readFlags(values);
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (run === undefined) throw new UsageError(`unknown command ${command}`);
    const source = sourceOf(values, io.env);
    if (source.url !== undefined && RUNTIME_COMMANDS.includes(command)) {
      throw new UsageError(
        `${command} needs the runtime itself (--runtime PATH); the approval app at --url carries on, sweeps and recovers its own runs`,
      );
    }
    const runtime = source.runtime === undefined ? undefined : await io.loadRuntime(source.runtime);
    const approvals =
      runtime === undefined ? httpApprovals({ url: source.url!, token: source.token! }) : runtimeApprovals(runtime);
    const output = (human: string, data: unknown) => print(json ? JSON.stringify(data, null, 2) : human);
    return await run({ command, rest, flags, approvals, runtime, io, json, output, now: Date.now() });
  } catch (error) {
    return failed(error, printError);
  }
}

/** The exit code of a failed command, its error printed: 2 (with the usage) for a usage mistake, 1 for the rest. */
function failed(error: unknown, printError: (text: string) => void): number {
  if (error instanceof UsageError) {
    printError(`error: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const code = codeOf(error) === undefined ? '' : ` [${codeOf(error)}]`;
  printError(`error${code}: ${(error as Error)?.message ?? String(error)}`);
  return 1;
}

/**
 * Where the approvals are: the approval app (`--url`, with `--token`) or a runtime module (`--runtime`). A flag beats
 * the environment (COUNTERSIGN_URL, COUNTERSIGN_RUNTIME); the token comes from --token, COUNTERSIGN_TOKEN or
 * COUNTERSIGN_APPROVALS_TOKEN (the gateway's app).
 */
function sourceOf(
  values: {
    readonly url?: string | undefined;
    readonly token?: string | undefined;
    readonly runtime?: string | undefined;
  },
  env: Record<string, string | undefined>,
): { readonly url?: string; readonly token?: string; readonly runtime?: string } {
  if (values.url !== undefined && values.runtime !== undefined)
    throw new UsageError('give --url (an approval app) or --runtime (a runtime module), not both');
  const url = values.url ?? (values.runtime === undefined ? env['COUNTERSIGN_URL'] || undefined : undefined);
  if (url === undefined) {
    const runtime = values.runtime ?? (env['COUNTERSIGN_RUNTIME'] || undefined);
    if (runtime === undefined) {
      throw new UsageError(
        'say where the approvals are: --url http://127.0.0.1:3000 --token TOKEN (a running approval app, e.g. npm start, which prints both), or --runtime ./runtime.js (or set COUNTERSIGN_URL / COUNTERSIGN_RUNTIME)',
      );
    }
    return { runtime };
  }
  const token = values.token ?? (env['COUNTERSIGN_TOKEN'] || env['COUNTERSIGN_APPROVALS_TOKEN'] || undefined);
  if (token === undefined)
    throw new UsageError(
      `the approval app at ${url} needs its bearer token: --token TOKEN or COUNTERSIGN_TOKEN (npm start prints it)`,
    );
  return { url, token };
}

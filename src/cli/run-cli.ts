import { parseArgs } from 'node:util';
import { inboxUrl } from '../links/link-urls.js';
import { requireLinks } from '../runtime/link-runtime.js';
import type { Runtime } from '../runtime/runtime.js';
import { codeOf } from './error-code.js';
import { type Approvals, DISMISSAL } from './approvals.js';
import { formatDecision, formatGrant, formatRequest, formatRun, inert } from './format.js';
import { GATEWAY_USAGE, runMcpGateway } from './mcp-gateway-command.js';
import { httpApprovals } from './http-approvals.js';
import { runReview } from './review/review-command.js';
import { runtimeApprovals } from './runtime-approvals.js';
import { runWorker } from './run-worker.js';
import { UsageError } from '../errors.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly loadRuntime: (path: string) => Promise<Runtime>;
  readonly env: Record<string, string | undefined>;
  /** Stops a long-running command (`worker`); the CLI ties it to SIGINT and SIGTERM. */
  readonly signal?: AbortSignal;
}

export const USAGE = `usage: countersign <command> [options]

Reads and decides the approvals of a running approval app over HTTP (--url URL --token TOKEN,
or COUNTERSIGN_URL and COUNTERSIGN_TOKEN; e.g. npm start's, at http://127.0.0.1:3000), or of a
runtime from a module you write (--runtime PATH or COUNTERSIGN_RUNTIME) that exports it as
\`runtime\` or default, e.g. createRuntime({ agents, store: createRedisStore({ redis }) }).
resume, inbox-link, sweep, recover and worker need --runtime.

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
${GATEWAY_USAGE}

options: --url URL and --token TOKEN (the approval app; the token from COUNTERSIGN_TOKEN keeps it out of
ps), --runtime PATH (a .ts module loads with tsx installed in the project), --json (machine-readable
output), --help. Colour only on a terminal, never with NO_COLOR set.`;

const options = {
  runtime: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  agent: { type: 'string' },
  session: { type: 'string' },
  limit: { type: 'string' },
  by: { type: 'string' },
  reason: { type: 'string' },
  scope: { type: 'string' },
  args: { type: 'string' },
  mode: { type: 'string' },
  ttl: { type: 'string' },
  uses: { type: 'string' },
  json: { type: 'boolean' },
  concurrency: { type: 'string' },
  prefix: { type: 'string' },
  every: { type: 'string' },
  'base-url': { type: 'string' },
  'expires-in': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

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
  if (argv[0] === 'mcp-gateway') return runMcpGateway(argv.slice(1), io).catch((error: unknown) => failed(error, printError));
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
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
  const output = (human: string, data: unknown) => print(json ? JSON.stringify(data, null, 2) : human);

  try {
    const positional = (count: number) => {
      if (rest.length !== count) throw new UsageError(`${command} takes ${count === 1 ? 'a run id' : 'a run id and an approval id'}`);
      return rest as [string, string];
    };
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError('--limit must be a whole number above 0');
    const mode = oneOf(values.mode, ['inline', 'record', 'enqueue'] as const, 'mode');
    const scope = oneOf(values.scope, ['once', 'run', 'session', 'agent'] as const, 'scope');
    let editedArgs: unknown;
    if (values.args !== undefined) {
      try {
        editedArgs = JSON.parse(values.args);
      } catch {
        throw new UsageError('--args must be JSON, e.g. --args \'{"path":"/tmp/a"}\'');
      }
    }
    const whole = (value: string | undefined, name: string, fallback: number) => {
      const number = value === undefined ? fallback : Number(value);
      if (!Number.isInteger(number) || number < 1) throw new UsageError(`--${name} must be a whole number above 0`);
      return number;
    };
    const bounds = {
      ...(values.ttl === undefined ? {} : { ttlMs: whole(values.ttl, 'ttl', 0) }),
      ...(values.uses === undefined ? {} : { uses: whole(values.uses, 'uses', 0) }),
    };
    const concurrency = whole(values.concurrency, 'concurrency', 4);
    const expiresIn = values['expires-in'] === undefined ? undefined : whole(values['expires-in'], 'expires-in', 0);
    const every = whole(values.every, 'every', 30_000);
    const commands = [
      'pending',
      'show',
      'approve',
      'deny',
      'dismiss',
      'review',
      'resume',
      'inbox-link',
      'cancel',
      'sweep',
      'recover',
      'worker',
      'grants',
      'revoke-grant',
      'clear-session',
    ];
    if (!commands.includes(command)) {
      throw new UsageError(`unknown command ${command}`);
    }

    const source = sourceOf(values, io.env);
    const needsRuntime = ['resume', 'inbox-link', 'sweep', 'recover', 'worker'].includes(command);
    if (source.url !== undefined && needsRuntime) {
      throw new UsageError(`${command} needs the runtime itself (--runtime PATH); the approval app at --url carries on, sweeps and recovers its own runs`);
    }
    const runtime = source.runtime === undefined ? undefined : await io.loadRuntime(source.runtime);
    const approvals: Approvals = runtime === undefined ? httpApprovals({ url: source.url!, token: source.token! }) : runtimeApprovals(runtime);
    const now = Date.now();
    switch (command) {
      case 'pending': {
        const page = await approvals.pending({
          ...(values.agent === undefined ? {} : { agent: values.agent }),
          ...(values.session === undefined ? {} : { sessionId: values.session }),
          ...(limit === undefined ? {} : { limit }),
        });
        output(page.items.length === 0 ? 'no pending approvals' : page.items.map((item) => formatRequest(item, item.request, now)).join('\n\n'), page);
        return 0;
      }
      case 'show': {
        const [runId] = positional(1);
        const run = await approvals.get(runId);
        output(formatRun(run, now), run);
        return 0;
      }
      case 'approve':
      case 'deny':
      case 'dismiss': {
        const [runId, approvalId] = positional(2);
        // A decider echoes the signature of the request it read (an agent with a decisionSecret refuses a decision without it).
        const signature = (await approvals.get(runId)).pendingApprovals.find((request) => request.approvalId === approvalId)?.signature;
        const result = await approvals.respond(
          runId,
          {
            approvalId,
            ...(signature === undefined ? {} : { signature }),
            ...(command === 'dismiss' ? DISMISSAL : { approved: command === 'approve' }),
            ...(values.by === undefined ? {} : { approvedBy: values.by }),
            ...(values.reason === undefined ? {} : { reason: values.reason }),
            ...(scope === undefined ? {} : { scope }),
            ...(Object.keys(bounds).length === 0 ? {} : { grant: bounds }),
            ...(editedArgs === undefined ? {} : { args: editedArgs }),
          },
          mode,
        );
        output(formatDecision({ approve: 'approved', deny: 'denied', dismiss: 'dismissed' }[command], result), result);
        return 0;
      }
      case 'grants': {
        const grants = await approvals.grants({
          ...(values.session === undefined ? {} : { sessionId: values.session }),
          ...(values.agent === undefined ? {} : { agent: values.agent }),
        });
        output(grants.length === 0 ? 'no live grants' : grants.map((grant) => formatGrant(grant)).join('\n'), grants);
        return 0;
      }
      case 'revoke-grant': {
        if (rest.length !== 1) throw new UsageError('revoke-grant takes a grant id');
        const revoked = await approvals.revokeGrant(rest[0]!);
        output(revoked ? `revoked ${rest[0]}` : `no live grant ${rest[0]}`, { revoked: revoked ? 1 : 0 });
        return 0;
      }
      case 'clear-session': {
        if (rest.length !== 1) throw new UsageError('clear-session takes a session id');
        const revoked = await approvals.clearSession(rest[0]!);
        output(`revoked ${revoked} grants of session ${rest[0]}`, { revoked });
        return 0;
      }
      case 'review':
        return await runReview(approvals, io, { by: values.by, agent: values.agent, sessionId: values.session, mode, json });
      case 'resume': {
        const [runId] = positional(1);
        const run = await approvals.get((await runtime!.resume(runId)).runId);
        output(formatRun(run, now), run);
        return 0;
      }
      case 'inbox-link': {
        if (rest.length !== 1) throw new UsageError('inbox-link takes the reviewer it is for, e.g. inbox-link alice@example.com');
        const reviewer = rest[0]!;
        const { token, expiresAt } = await requireLinks(runtime!, 'countersign inbox-link').inboxToken(reviewer, expiresIn === undefined ? {} : { expiresIn });
        const url = inboxUrl(values['base-url'] ?? '', token);
        output(
          `${url}\n  ${reviewer}'s inbox until ${new Date(expiresAt).toISOString()}${values['base-url'] === undefined ? ' (a path on the approval app; --base-url URL gives the whole link)' : ''}`,
          { reviewer, url, token, expiresAt },
        );
        return 0;
      }
      case 'cancel': {
        const [runId] = positional(1);
        const run = await approvals.cancel(runId, values.reason ?? 'cancelled from the command line');
        output(`run ${runId} is ${run.status}`, run);
        return 0;
      }
      case 'worker':
        return await runWorker(runtime!, { ...io, signal: io.signal ?? new AbortController().signal }, { concurrency, prefix: values.prefix, housekeepingMs: every });
      case 'sweep': {
        const result = await runtime!.sweepExpired();
        output(`expired ${result.expired} approvals in ${result.runs} runs${result.failed > 0 ? `; ${result.failed} runs failed` : ''}`, result);
        return 0;
      }
      default: {
        const result = await runtime!.recover();
        output(`resumed ${result.resumed} runs; asked again about ${result.askedAgain} interrupted calls${result.failed > 0 ? `; ${result.failed} runs failed` : ''}`, result);
        return 0;
      }
    }
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
  values: { readonly url?: string | undefined; readonly token?: string | undefined; readonly runtime?: string | undefined },
  env: Record<string, string | undefined>,
): { readonly url?: string; readonly token?: string; readonly runtime?: string } {
  if (values.url !== undefined && values.runtime !== undefined) throw new UsageError('give --url (an approval app) or --runtime (a runtime module), not both');
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
  if (token === undefined) throw new UsageError(`the approval app at ${url} needs its bearer token: --token TOKEN or COUNTERSIGN_TOKEN (npm start prints it)`);
  return { url, token };
}

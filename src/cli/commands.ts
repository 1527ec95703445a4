// The commands of `countersign`, one small function each, over the approvals (an approval app over HTTP, or a runtime
// module) and the checked flags. Each prints through `output` (text, or JSON with --json) and returns its exit code.
import { inboxUrl } from '../links/link-urls.js';
import { requireLinks } from '../runtime/link-runtime.js';
import type { Runtime } from '../runtime/runtime.js';
import { type Approvals, DISMISSAL } from './approvals.js';
import type { CliFlags } from './cli-flags.js';
import { formatDecision, formatGrant, formatRequest, formatRun } from './format.js';
import { runReview } from './review/review-command.js';
import type { CliIo } from './cli-io.js';
import { runWorker } from './run-worker.js';
import { UsageError } from '../errors.js';
import { runTokens } from './tokens-command.js';

/** What a command gets: its name and positionals, the flags, where the approvals are, and how to print. */
export interface CommandContext {
  readonly command: string;
  readonly rest: readonly string[];
  readonly flags: CliFlags;
  readonly approvals: Approvals;
  /** The runtime module's runtime; present for the commands in RUNTIME_COMMANDS. */
  readonly runtime: Runtime | undefined;
  readonly io: CliIo;
  readonly json: boolean;
  readonly output: (human: string, data: unknown) => void;
  readonly now: number;
}

type Command = (context: CommandContext) => Promise<number>;

/** The commands that need the runtime itself (--runtime), not an approval app. */
export const RUNTIME_COMMANDS: readonly string[] = ['resume', 'inbox-link', 'sweep', 'recover', 'worker', 'tokens'];

function positional(context: CommandContext, count: 1 | 2): [string, string] {
  if (context.rest.length !== count)
    throw new UsageError(`${context.command} takes ${count === 1 ? 'a run id' : 'a run id and an approval id'}`);
  return context.rest as [string, string];
}

function onlyArgument(context: CommandContext, what: string): string {
  if (context.rest.length !== 1) throw new UsageError(`${context.command} takes ${what}`);
  return context.rest[0]!;
}

const pending: Command = async ({ approvals, flags, output, now }) => {
  const page = await approvals.pending({
    ...(flags.raw.agent === undefined ? {} : { agent: flags.raw.agent }),
    ...(flags.raw.session === undefined ? {} : { sessionId: flags.raw.session }),
    ...(flags.limit === undefined ? {} : { limit: flags.limit }),
  });
  output(
    page.items.length === 0
      ? 'no pending approvals'
      : page.items.map((item) => formatRequest(item, item.request, now)).join('\n\n'),
    page,
  );
  return 0;
};

const show: Command = async (context) => {
  const [runId] = positional(context, 1);
  const run = await context.approvals.get(runId);
  context.output(formatRun(run, context.now), run);
  return 0;
};

const decide: Command = async (context) => {
  const { approvals, flags, command } = context;
  const [runId, approvalId] = positional(context, 2);
  // A decider echoes the signature of the request it read (an agent with a decisionSecret refuses a decision without it).
  const signature = (await approvals.get(runId)).pendingApprovals.find(
    (request) => request.approvalId === approvalId,
  )?.signature;
  const result = await approvals.respond(
    runId,
    {
      approvalId,
      ...(signature === undefined ? {} : { signature }),
      ...(command === 'dismiss' ? DISMISSAL : { approved: command === 'approve' }),
      ...(flags.raw.by === undefined ? {} : { approvedBy: flags.raw.by }),
      ...(flags.raw.reason === undefined ? {} : { reason: flags.raw.reason }),
      ...(flags.scope === undefined ? {} : { scope: flags.scope }),
      ...(Object.keys(flags.bounds).length === 0 ? {} : { grant: flags.bounds }),
      ...(flags.editedArgs === undefined ? {} : { args: flags.editedArgs }),
    },
    flags.mode,
  );
  const done = { approve: 'approved', deny: 'denied', dismiss: 'dismissed' } as const;
  context.output(formatDecision(done[command as keyof typeof done], result), result);
  return 0;
};

const grants: Command = async ({ approvals, flags, output }) => {
  const live = await approvals.grants({
    ...(flags.raw.session === undefined ? {} : { sessionId: flags.raw.session }),
    ...(flags.raw.agent === undefined ? {} : { agent: flags.raw.agent }),
  });
  output(live.length === 0 ? 'no live grants' : live.map((grant) => formatGrant(grant)).join('\n'), live);
  return 0;
};

const revokeGrant: Command = async (context) => {
  const id = onlyArgument(context, 'a grant id');
  const revoked = await context.approvals.revokeGrant(id);
  context.output(revoked ? `revoked ${id}` : `no live grant ${id}`, { revoked: revoked ? 1 : 0 });
  return 0;
};

const clearSession: Command = async (context) => {
  const sessionId = onlyArgument(context, 'a session id');
  const revoked = await context.approvals.clearSession(sessionId);
  context.output(`revoked ${revoked} grants of session ${sessionId}`, { revoked });
  return 0;
};

const review: Command = ({ approvals, io, flags, json }) =>
  runReview(approvals, io, {
    by: flags.raw.by,
    agent: flags.raw.agent,
    sessionId: flags.raw.session,
    mode: flags.mode,
    json,
  });

const resume: Command = async (context) => {
  const [runId] = positional(context, 1);
  const run = await context.approvals.get((await context.runtime!.resume(runId)).runId);
  context.output(formatRun(run, context.now), run);
  return 0;
};

const inboxLink: Command = async (context) => {
  const reviewer = onlyArgument(context, 'the reviewer it is for, e.g. inbox-link alice@example.com');
  const { expiresIn } = context.flags;
  const { token, expiresAt } = await requireLinks(context.runtime!, 'countersign inbox-link').inboxToken(
    reviewer,
    expiresIn === undefined ? {} : { expiresIn },
  );
  const baseUrl = context.flags.raw['base-url'];
  const url = inboxUrl(baseUrl ?? '', token);
  const hint = baseUrl === undefined ? ' (a path on the approval app; --base-url URL gives the whole link)' : '';
  context.output(`${url}\n  ${reviewer}'s inbox until ${new Date(expiresAt).toISOString()}${hint}`, {
    reviewer,
    url,
    token,
    expiresAt,
  });
  return 0;
};

const cancel: Command = async (context) => {
  const [runId] = positional(context, 1);
  const run = await context.approvals.cancel(runId, context.flags.raw.reason ?? 'cancelled from the command line');
  context.output(`run ${runId} is ${run.status}`, run);
  return 0;
};

const worker: Command = ({ runtime, io, flags }) =>
  runWorker(
    runtime!,
    { ...io, signal: io.signal ?? new AbortController().signal },
    { concurrency: flags.concurrency, prefix: flags.raw.prefix, housekeepingMs: flags.every },
  );

const sweep: Command = async ({ runtime, output }) => {
  const result = await runtime!.sweepExpired();
  output(
    `expired ${result.expired} approvals in ${result.runs} runs${result.failed > 0 ? `; ${result.failed} runs failed` : ''}`,
    result,
  );
  return 0;
};

const recover: Command = async ({ runtime, output }) => {
  const result = await runtime!.recover();
  output(
    `resumed ${result.resumed} runs; asked again about ${result.askedAgain} interrupted calls${result.failed > 0 ? `; ${result.failed} runs failed` : ''}`,
    result,
  );
  return 0;
};

const tokens: Command = ({ runtime, rest, flags, output, now }) => runTokens(runtime!, rest, flags, output, now);

/** Every command by its name. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  pending,
  show,
  approve: decide,
  deny: decide,
  dismiss: decide,
  review,
  resume,
  'inbox-link': inboxLink,
  cancel,
  sweep,
  recover,
  worker,
  grants,
  'revoke-grant': revokeGrant,
  'clear-session': clearSession,
  tokens,
};

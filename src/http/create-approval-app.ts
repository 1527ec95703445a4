import { createHash, randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { ConfigError, StoreUnavailableError, VersionConflictError } from '../errors.js';
import type { ExecuteInput } from '../machine/execute.js';
import { httpUrlSchema } from '../machine/url-schema.js';
import type { AgentSnapshot, ApprovalResponse, Message } from '../machine/types.js';
import type { RespondResult, Runtime } from '../runtime/runtime.js';
import { requireLinks } from '../runtime/link-runtime.js';
import type { AppEnv } from './app-env.js';
import { answerJson } from './answer-json.js';
import { authenticate, type AuthSettings } from './authenticate.js';
import { blanketDecisions } from './blanket-decisions.js';
import { streamEvents, type EventFeed } from './events-route.js';
import { confirmationPage, inboxPage, LINK_PAGE_HEADERS, messagePage } from './link-pages.js';
import { loopbackOnly } from './loopback-only.js';
import { openApiDocument } from './openapi.js';
import { HttpProblem, problem, problemFor, problemResponse } from '../web/problem.js';
import { parseJsonBody, parseWith, tooLarge } from '../web/read-body.js';
import { decideWithLink } from '../channels/decide-click.js';
import { awaitRun, type Outcome } from '../runtime/await-run.js';
import { runView } from './run-view.js';
import { slackActions, type SlackActionsOptions } from './slack-actions.js';
import { batchBody, cancelBody, decisionBody, pendingQuery, startRunBody } from './schemas.js';
import { claimDeliveries } from './webhook-replay.js';
import { parseTargetedBody } from './write-target.js';
import { parseOptions } from '../options.js';

/**
 * What went wrong where, for `onError`.
 *
 * @example
 * createApprovalApp(runtime, {
 *   bearerToken,
 *   onError: (error, { operation, runId }) => logger.error({ err: error, operation, runId }, 'approval app'),
 * });
 */
export interface ApprovalAppErrorContext {
  /** `request` (an unexpected error answered with 500), `resume`/`start` (a run that went on after a 202 failed later), `events`, `webhook-dedupe`. */
  readonly operation: string;
  readonly runId?: string;
  readonly method?: string;
  readonly path?: string;
}

/**
 * Options of `createApprovalApp`. At least one of `bearerToken` and
 * `webhookSecret` is required (or `insecure: true`).
 *
 * @example
 * const options: ApprovalAppOptions = {
 *   bearerToken: [process.env.APPROVALS_TOKEN!, process.env.APPROVALS_TOKEN_OLD!],
 *   webhookSecret: process.env.SLACK_BRIDGE_SECRET!,
 *   maxBodyBytes: 32 * 1024,
 *   resumeTimeoutMs: 5_000,
 *   onError: (error, context) => report(error, context),
 * };
 */
export interface ApprovalAppOptions {
  /** Bearer token(s) for every route but links, health and the OpenAPI document. Several while you rotate. */
  readonly bearerToken?: string | readonly string[];
  /** `whsec_` secret(s) of Standard Webhooks senders allowed to write (start, decide, batch, cancel). Several while you rotate. */
  readonly webhookSecret?: string | readonly string[];
  /** Serve without any authentication. Refused unless said explicitly; for demos on loopback only. */
  readonly insecure?: boolean;
  /** Largest body accepted, in bytes; checked before anything reads the body. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /**
   * Where a decided (or started) run goes on: `'inline'` (default) here, before answering;
   * `'enqueue'` on a worker, through the runtime's `queue` (a thin or
   * serverless front answers 202 as soon as the decision is recorded and the run queued).
   * `'enqueue'` with a runtime that has no queue is refused here, at creation.
   */
  readonly resumeMode?: 'inline' | 'enqueue';
  /**
   * How long a decision (or a start), once recorded, waits for the run to pause or end before answering 202.
   * Default 10 s. Recording itself is always awaited: a decision that could not be written is a 503, never a 202.
   */
  readonly resumeTimeoutMs?: number;
  /** Epoch milliseconds, for webhook timestamps. Default `Date.now`; inject a fake one in tests. */
  readonly clock?: () => number;
  /** Where `GET /events` reads events. Default `runtime.subscribe` (this process's commits only). */
  readonly events?: EventFeed;
  /** Interval of the SSE heartbeat comments. Default 15 s. */
  readonly heartbeatMs?: number;
  /**
   * Take button clicks from a Slack app at `POST /slack/actions` (its interactivity request URL), authenticated by
   * Slack's request signature, not by `bearerToken` or `webhookSecret`. Pair with `createSlackNotifier`.
   */
  readonly slack?: SlackActionsOptions;
  /** Unexpected errors (answered with a bare 500) and failures of runs that went on after a 202. */
  readonly onError?: (error: unknown, context: ApprovalAppErrorContext) => void;
}

const secretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must be a whsec_ secret (whsec_ then base64)')
  .refine((secret) => Buffer.from(secret.slice(6), 'base64').length >= 16, 'must hold at least 16 bytes of key after whsec_');
const tokenSchema = z.string().regex(/^[\x21-\x7e]{16,512}$/, 'must be 16 to 512 visible ASCII characters');
const optionsSchema = z.object({
  bearerToken: z.union([tokenSchema, z.array(tokenSchema).min(1)]).optional(),
  webhookSecret: z.union([secretSchema, z.array(secretSchema).min(1)]).optional(),
  insecure: z.boolean().optional(),
  maxBodyBytes: z.number().int().min(1024).max(64 * 1024 * 1024).optional(),
  resumeTimeoutMs: z.number().int().min(0).max(15 * 60_000).optional(),
  clock: z.custom<() => number>((value) => typeof value === 'function', 'must be a function returning epoch ms').optional(),
  events: z.custom<EventFeed>((value) => typeof (value as EventFeed | undefined)?.subscribe === 'function', 'must have subscribe(listener)').optional(),
  heartbeatMs: z.number().int().min(10).optional(),
  resumeMode: z.enum(['inline', 'enqueue']).optional(),
  slack: z
    .strictObject({
      signingSecret: z.union([z.string().min(16, 'must be the Slack app\'s signing secret'), z.array(z.string().min(16, 'must be the Slack app\'s signing secret')).min(1)]),
      responseUrlOrigins: z.array(httpUrlSchema({ example: 'https://hooks.slack.com', credential: 'signingSecret' })).min(1).optional(),
      fetch: z.custom<typeof fetch>((value) => typeof value === 'function', 'must be a function').optional(),
    })
    .optional(),
  onError: z.custom<ApprovalAppOptions['onError']>((value) => typeof value === 'function', 'must be a function').optional(),
});

const list = <T>(value: T | readonly T[] | undefined): readonly T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value as T]);

/**
 * The approval app: a Hono app that starts runs, lists and shows pending
 * approvals, takes decisions (bearer token or Standard Webhooks signature),
 * serves one-click link pages and streams run events. Serve it with
 * `serve(app, { port })`, export `app.fetch` from a serverless function, or
 * call `app.request()` in tests. Errors are problem details
 * (`application/problem+json`) with a stable `code`.
 *
 * @example
 * import { createRuntime, createMemoryStore } from 'countersign';
 * import { createApprovalApp, serve } from 'countersign/http';
 *
 * const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
 * const app = createApprovalApp(runtime, {
 *   bearerToken: process.env.APPROVALS_TOKEN!,
 *   webhookSecret: process.env.SLACK_BRIDGE_SECRET!, // whsec_...
 * });
 * const server = await serve(app, { port: 8787 });
 */
export function createApprovalApp(runtime: Runtime, options: ApprovalAppOptions = {}): Hono<AppEnv> {
  parseOptions(optionsSchema, options, 'createApprovalApp');
  if (typeof (runtime as Runtime | undefined)?.respond !== 'function') {
    throw new ConfigError('createApprovalApp: the first argument must be a runtime made with createRuntime({ agents, store }).');
  }
  const bearerTokens = list(options.bearerToken);
  const webhookSecrets = list(options.webhookSecret);
  if (bearerTokens.length === 0 && webhookSecrets.length === 0 && options.insecure !== true) {
    throw new ConfigError(
      'createApprovalApp: set bearerToken and/or webhookSecret (a whsec_ secret) so that only your systems can approve tool calls; ' +
        'pass insecure: true only for a demo on loopback.',
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const resumeTimeoutMs = options.resumeTimeoutMs ?? 10_000;
  const clock = options.clock ?? Date.now;
  const feed: EventFeed = options.events ?? { subscribe: (listener) => runtime.subscribe(listener) };
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const resumeMode = options.resumeMode ?? 'inline';
  if (resumeMode === 'enqueue' && runtime.queue === undefined) {
    throw new ConfigError("createApprovalApp: resumeMode 'enqueue' needs a runtime made with createRuntime({ queue: createRedisResumeQueue({ redis }) }); or use resumeMode 'inline'.", 'missing_option');
  }
  /** How a route records before it answers: with the run's queueing in enqueue mode, alone otherwise (the run then goes on here). */
  const recordMode = resumeMode === 'enqueue' ? 'enqueue' : 'record';

  const report = (error: unknown, context: ApprovalAppErrorContext) => {
    try {
      options.onError?.(error, context);
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };

  const auth: AuthSettings = {
    bearerTokens,
    webhookSecrets,
    insecure: bearerTokens.length === 0 && webhookSecrets.length === 0,
    clock,
    maxBodyBytes,
    toleranceSeconds: 300,
  };
  const read = authenticate(auth, { acceptSignature: false, readBody: false });
  const write = [
    authenticate(auth, { acceptSignature: true, readBody: true }),
    claimDeliveries(runtime.once, (error) => report(error, { operation: 'webhook-dedupe' })),
  ] as const;

  /**
   * Runs a recorded run on here, answering 202 when that takes longer than `resumeTimeoutMs` (and reporting its
   * later failure). Only called once the decision or the run is recorded, so a 202 never stands for a write that
   * may not happen: a failed record is thrown first, and answered 503 with Retry-After.
   */
  const carryOn = <T>(work: Promise<T>, operation: string, runId: string) =>
    awaitRun(work, resumeTimeoutMs, (error) => report(error, { operation, runId }));
  /** Inline, after `respond` recorded: a new decision resumes the run; a repeat goes through `respond` again, which carries on only a run its first responder left stalled. */
  const resumeAfter = (runId: string, response: ApprovalResponse, recorded: RespondResult): Promise<AgentSnapshot> =>
    recorded.duplicate ? runtime.respond(runId, response).then((result) => result.snapshot) : runtime.resume(runId);
  const accepted = (c: Context<AppEnv>, runId: string, extra: Record<string, unknown> = {}) =>
    answerJson(c, { status: 'running', accepted: true, runId, ...extra }, 202, { location: `/runs/${encodeURIComponent(runId)}` });

  /** An enqueued decision's answer: "accepted" once it made the run ready (a worker carries it on), else the run as it stands. */
  const enqueuedAnswer = (runId: string, snapshot: AgentSnapshot, duplicate: boolean) =>
    snapshot.status === 'running' && !duplicate
      ? { status: 202 as const, body: { status: 'running', accepted: true, runId, duplicate } }
      : { status: 200 as const, body: { status: snapshot.status, duplicate, run: runView(snapshot) } };
  /**
   * Records a decision and queues the run; a signed delivery's claim is settled with the answer in the same commit
   * where the store can (one round trip for the decision, the job and the answer), else by the claim's middleware.
   */
  const decideEnqueued = async (c: Context<AppEnv>, runId: string, response: ApprovalResponse) => {
    const delivery = c.var.delivery;
    const recorded = await runtime.respond(runId, response, {
      mode: 'enqueue',
      ...(delivery === undefined
        ? {}
        : {
            replaceRemembered: (next: AgentSnapshot) => {
              const answer = enqueuedAnswer(runId, next, false);
              return delivery.settleWith(answer.status, JSON.stringify(answer.body));
            },
          }),
    });
    if (recorded.replaced === true) c.set('settled', true);
    const answer = enqueuedAnswer(runId, recorded.snapshot, recorded.duplicate);
    return answerJson(c, answer.body, answer.status, answer.status === 202 ? { location: `/runs/${encodeURIComponent(runId)}` } : undefined);
  };

  const app = new Hono<AppEnv>();

  app.onError((error, c) => {
    const answer = problemFor(error);
    if (answer.unexpected) report(error, { operation: 'request', method: c.req.method, path: c.req.path });
    return problemResponse(answer.problem, answer.headers);
  });
  app.notFound((c) => problemResponse(problem(404, 'not_found', `No route ${c.req.method} ${c.req.path}; see GET /openapi.json.`)));

  app.use(async function safeHeaders(c, next) {
    // Set before the handler, so a response the route builds with the context carries them as built; editing the
    // finished response afterwards costs the Node adapter its fast path. A route's own cache-control (link pages,
    // the event stream) replaces this one.
    c.header('x-content-type-options', 'nosniff');
    c.header('cache-control', 'no-store');
    await next();
    // Responses built without the context (problem details, replayed answers) get them here.
    if (c.res.headers.has('x-content-type-options')) return;
    try {
      c.res.headers.set('x-content-type-options', 'nosniff');
      // Runs, approvals and decisions are private and change: no cache (shared or not) may keep them.
      if (/^application\/(?:problem\+)?json/i.test(c.res.headers.get('content-type') ?? '') && !c.res.headers.has('cache-control')) {
        c.res.headers.set('cache-control', 'no-store');
      }
    } catch {
      // A response with immutable headers keeps them.
    }
  });
  if (auth.insecure) app.use(loopbackOnly());
  // A declared length over the limit is refused before anything. Bodies are read (never past the limit, chunked ones
  // included) only by the routes that need them, after their credentials and headers are checked.
  app.use(async function declaredLength(c, next) {
    if (Number(c.req.header('content-length') ?? 0) > maxBodyBytes) throw tooLarge(maxBodyBytes);
    await next();
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  const document = openApiDocument();
  app.get('/openapi.json', (c) => c.json(document));
  if (options.slack) {
    const slackSettings = { ...options.slack, clock, maxBodyBytes, resumeMode, resumeTimeoutMs };
    app.post('/slack/actions', slackActions(requireLinks(runtime, 'createApprovalApp({ slack })'), { ...slackSettings, onError: (error, context) => report(error, { ...context, method: 'POST', path: '/slack/actions' }) }));
  }

  app.post('/runs', ...write, async (c) => {
    const body = parseJsonBody(startRunBody, c.var.rawBody);
    runtime.agent(body.agent);
    const caller = c.var.caller;
    // A signed delivery gets a run id derived from its webhook-id, so a replay cannot start a second run.
    const runId =
      body.runId ??
      (caller.kind === 'webhook'
        ? `run_wh_${createHash('sha256').update(caller.webhookId).digest('base64url').slice(0, 32)}`
        : `run_${randomUUID()}`);
    const input: ExecuteInput = { input: typeof body.input === 'string' ? body.input : (body.input as Message[]), runId };
    const location = { location: `/runs/${encodeURIComponent(runId)}` };
    try {
      await runtime.start(body.agent, input, { mode: recordMode });
    } catch (error) {
      // A redelivery racing the first delivery of the same webhook-id: the run exists, so answer with it.
      const existing = error instanceof VersionConflictError && body.runId === undefined && caller.kind === 'webhook' ? await runtime.store.load(runId) : undefined;
      if (!existing) throw error;
      return answerJson(c, { status: existing.status, run: runView(existing), duplicate: true }, 200, location);
    }
    if (resumeMode === 'enqueue') return accepted(c, runId);
    const outcome: Outcome<AgentSnapshot> = await carryOn(runtime.resume(runId), 'start', runId);
    if (!outcome.done) return accepted(c, runId);
    return answerJson(c, { status: outcome.value.status, run: runView(outcome.value) }, 201, location);
  });

  app.get('/runs/:runId', read, async (c) => c.json(runView(await runtime.get(c.req.param('runId')))));

  app.get('/approvals', read, async (c) => {
    const query = parseWith(pendingQuery, c.req.query(), 'query');
    const page = await runtime.pending({
      ...(query.agent === undefined ? {} : { agent: query.agent }),
      ...(query.limit === undefined ? {} : { limit: query.limit }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return c.json({ items: page.items, ...(page.cursor === undefined ? {} : { cursor: page.cursor }) });
  });

  app.post('/runs/:runId/approvals/:approvalId', ...write, async (c) => {
    const runId = c.req.param('runId');
    const body = parseTargetedBody(c, decisionBody);
    const response: ApprovalResponse = { approvalId: c.req.param('approvalId'), ...(body as Omit<ApprovalResponse, 'approvalId'>) };
    if (resumeMode === 'enqueue') return decideEnqueued(c, runId, response);
    const recorded = await runtime.respond(runId, response, { mode: recordMode });
    const { duplicate } = recorded;
    if (resumeMode === 'inline' && recorded.status === 'running') {
      const outcome = await carryOn(resumeAfter(runId, response, recorded), 'resume', runId);
      if (!outcome.done) return accepted(c, runId, { duplicate });
      return answerJson(c, { status: outcome.value.status, duplicate, run: runView(outcome.value) });
    }
    return answerJson(c, { status: recorded.status, duplicate, run: runView(recorded.snapshot) });
  });

  app.post('/runs/:runId/approvals', ...write, async (c) => {
    const runId = c.req.param('runId');
    const body = parseTargetedBody(c, batchBody);
    const run = await runtime.get(runId);
    let items: ApprovalResponse[];
    if ('decisions' in body) {
      items = body.decisions.map((decision) => decision as ApprovalResponse);
    } else {
      items = blanketDecisions(run, { ...body, approved: 'approveAll' in body }, runtime.agent(run.agentName).settings.decisionSecret !== undefined);
    }
    // Each decision is recorded on its own, then the run resumes once: here (inline), or on a
    // worker (enqueue: only the decision that makes the run ready puts it on the queue).
    const results: Record<string, unknown>[] = [];
    let latest: AgentSnapshot = run;
    let recorded = false;
    for (const item of items) {
      try {
        const result: RespondResult = await runtime.respond(runId, item, { mode: recordMode });
        latest = result.snapshot;
        recorded ||= !result.duplicate;
        results.push({ approvalId: item.approvalId, ok: true, duplicate: result.duplicate });
      } catch (error) {
        // Unreachable store: the whole answer is a 503, so no 2xx stands for a decision that was not written (a retry finds the recorded ones as duplicates).
        if (error instanceof StoreUnavailableError) throw error;
        const answer = problemFor(error);
        if (answer.unexpected) report(error, { operation: 'request', runId, method: c.req.method, path: c.req.path });
        results.push({ approvalId: item.approvalId, ok: false, problem: answer.problem });
      }
    }
    if (recorded && latest.status === 'running' && resumeMode === 'enqueue') return accepted(c, runId, { results });
    if (recorded && latest.status === 'running') {
      const outcome = await carryOn(runtime.resume(runId), 'resume', runId);
      if (!outcome.done) return accepted(c, runId, { results });
      latest = outcome.value;
    }
    return answerJson(c, { status: latest.status, run: runView(latest), results });
  });

  app.post('/runs/:runId/cancel', ...write, async (c) => {
    const body = parseTargetedBody(c, cancelBody);
    const run = await runtime.cancel(c.req.param('runId'), body.reason);
    return answerJson(c, { status: run.status, run: runView(run) });
  });

  app.get('/events', read, (c) =>
    streamEvents(c, feed, { heartbeatMs, onError: (error) => report(error, { operation: 'events', method: 'GET', path: '/events' }) }),
  );

  const linkPage = (c: Context<AppEnv>, status: number, html: string) => c.newResponse(html, status as 200, LINK_PAGE_HEADERS);
  const linkFailure = (c: Context<AppEnv>, error: unknown) => {
    if (error instanceof ConfigError && /links/.test(error.message)) {
      return linkPage(c, 404, messagePage('Links are not enabled', 'This server does not serve one-click approval links.'));
    }
    const answer = problemFor(error);
    if (answer.unexpected) report(error, { operation: 'request', method: c.req.method, path: c.req.routePath });
    const title =
      answer.problem.code === 'invalid_link_token'
        ? 'This link cannot be used'
        : answer.problem.code === 'decision_conflict'
          ? 'Already decided'
          : answer.problem.status >= 500
            ? 'Something went wrong'
            : 'This approval cannot be decided';
    const detail = answer.unexpected ? 'The decision was not recorded. Try the link again later.' : answer.problem.detail;
    const response = linkPage(c, answer.problem.status, messagePage(title, detail));
    for (const [name, value] of Object.entries(answer.headers)) response.headers.set(name, value);
    return response;
  };
  const linkToken = (c: Context<AppEnv>) => {
    const token = c.req.param('token') ?? '';
    // Checked here so an oversized token reads as a bad link, not as a configuration error.
    if (!/^[A-Za-z0-9_-]{1,4000}\.[A-Za-z0-9_-]{1,100}$/.test(token)) throw new HttpProblem(problem(401, 'invalid_link_token', 'This approval link is malformed; open the link exactly as it was sent.', { reason: 'malformed' }));
    return token;
  };

  app.get('/inbox/:token', async (c) => {
    try {
      const token = linkToken(c);
      const cursor = c.req.query('cursor');
      const agent = c.req.query('agent');
      const page = await requireLinks(runtime, 'GET /inbox').reviewInbox(token, { limit: 50, ...(cursor === undefined ? {} : { cursor }), ...(agent === undefined ? {} : { agent }) });
      const next = page.cursor === undefined ? undefined : `./${token}?cursor=${encodeURIComponent(page.cursor)}${agent === undefined ? '' : `&agent=${encodeURIComponent(agent)}`}`;
      // Relative form targets, like the link pages', so the app can be mounted under a prefix.
      const linkPath = (linkToken: string) => `../links/${linkToken}`;
      return linkPage(c, 200, inboxPage(page, { ...(next === undefined ? {} : { next }), linkPath }));
    } catch (error) {
      return linkFailure(c, error);
    }
  });

  app.get('/links/:token', async (c) => {
    try {
      const token = linkToken(c);
      const { claim, snapshot } = await requireLinks(runtime, 'GET /links').inspectLink(token);
      const request = snapshot.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
      if (!request || snapshot.status !== 'awaitingApproval') {
        const decided = snapshot.audit.find((entry) => entry.approvalId === claim.approvalId);
        return linkPage(
          c,
          410,
          messagePage(
            'Nothing left to decide',
            decided
              ? `This approval was already ${decided.decision}${decided.by ? ` by ${decided.by}` : ''}.`
              : `Run ${snapshot.runId} is ${snapshot.status}; this approval is no longer pending.`,
          ),
        );
      }
      return linkPage(c, 200, confirmationPage({ claim, request, action: `./${token}` }));
    } catch (error) {
      return linkFailure(c, error);
    }
  });

  app.post('/links/:token', async (c) => {
    try {
      const token = linkToken(c);
      const { result, carryingOn } = await decideWithLink(requireLinks(runtime, 'POST /links'), token, { resumeMode, resumeTimeoutMs, onLateError: (error, runId) => report(error, { operation: 'resume', runId }) });
      if (carryingOn) return linkPage(c, 202, messagePage('Decision recorded', 'The agent is carrying on; you can close this page.'));
      const { snapshot, duplicate, approvalId } = result;
      const entry = snapshot.audit.find((item) => item.approvalId === approvalId);
      const verb = entry?.decision === 'denied' ? 'Denied' : 'Approved';
      return linkPage(c, 200, messagePage(duplicate ? 'Already recorded' : verb, `Run ${snapshot.runId} is now ${snapshot.status}. You can close this page.`));
    } catch (error) {
      return linkFailure(c, error);
    }
  });

  return app;
}

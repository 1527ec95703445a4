import { Hono } from 'hono';
import { type Runtime, isLinkedRuntime } from '../index.js';
import { parseOptions, problem, problemFor, problemResponse, tooLarge, resumeModeOf } from '../kit/index.js';
import { ConfigError } from '../errors.js';
import type { AppEnv } from './app-env.js';
import { authenticate, type AuthSettings } from './authenticate.js';
import type { EventFeed } from './events-route.js';
import { loopbackOnly } from './loopback-only.js';
import { consoleSessions, type InboxCheck } from './console/console-session.js';
import { agentRoutes } from './routes/agents.js';
import { approvalRoutes } from './routes/approvals.js';
import { connectorRoutes } from './routes/connectors.js';
import { grantRoutes } from './routes/grants.js';
import { consoleRoutes } from './routes/console.js';
import { consoleGrantRoutes } from './routes/console-grants.js';
import { consoleRecordRoutes } from './routes/console-records.js';
import { requestRoutes } from './routes/requests.js';
import { ruleRoutes } from './routes/rules.js';
import { auditHistory } from './console/audit-history.js';
import type { PutIfAbsentWrite } from '../index.js';
import { channelRoutes } from './routes/channels.js';
import { eventRoutes } from './routes/events.js';
import { inboxRoutes } from './routes/inbox.js';
import { linkRoutes } from './routes/links.js';
import type { ApprovalAppErrorContext, RouteSettings } from './routes/route-settings.js';
import { insightsRoutes } from './routes/insights.js';
import { runRoutes } from './routes/runs.js';
import { serviceRoutes } from './routes/service.js';
import { safeHeaders } from './safe-headers.js';
import { claimDeliveries } from './webhook-replay.js';
import { personSessionGuard } from './console/person-session-guard.js';
import { type ApprovalAppOptions, optionsSchema } from './app-options.js';

export type { ApprovalAppErrorContext } from './routes/route-settings.js';

/** How many decisions the console's history keeps (in memory, from the event feed). */
const HISTORY_LIMIT = 1000;

/** Asks the store whether it claims a key in a commit: the kind is what matters, not this key or value. */
const CLAIM_PROBE: PutIfAbsentWrite = { kind: 'putIfAbsent', key: 'webhook-id', value: 'answer', ttlMs: 1 };

/** How the console checks an inbox session's link on each request: with the runtime's links (none without them). */
function inboxCheck(runtime: Runtime): InboxCheck | undefined {
  if (!isLinkedRuntime(runtime)) return undefined;
  return (token) => {
    try {
      return runtime.links.verifyInbox(token);
    } catch {
      return undefined;
    }
  };
}

const list = <T>(value: T | readonly T[] | undefined): readonly T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value as T];

/**
 * The approval app: a Hono app that starts runs, lists and shows pending
 * approvals, takes decisions (bearer token or Standard Webhooks signature),
 * asks on behalf of callers outside the agent loop (`POST /approvals`, waited
 * for with `GET /approvals/:requestId?waitMs=`), serves one-click link pages
 * and the approver's console (at `/`), streams run events and mounts
 * channels' handlers (`channels`). Serve it with `serve(app, { port })`,
 * export `app.fetch` from a serverless function, or call `app.request()` in
 * tests. Errors are problem details (`application/problem+json`) with a
 * stable `code`.
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
  const { bearerTokens, webhookSecrets } = credentialsOf(runtime, options);
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const report = (error: unknown, context: ApprovalAppErrorContext) => {
    try {
      options.onError?.(error, context);
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };
  const clock = options.clock ?? Date.now;
  const { personTokens } = runtime;
  const sessions = consoleSessions([...bearerTokens, ...webhookSecrets], clock, inboxCheck(runtime));
  const insecure = bearerTokens.length === 0 && webhookSecrets.length === 0 && personTokens === undefined;
  const auth: AuthSettings = {
    bearerTokens,
    webhookSecrets,
    insecure,
    clock,
    maxBodyBytes,
    toleranceSeconds: 300,
    sessions,
    personTokens,
  };
  const settings = routeSettingsOf(runtime, options, auth, report);
  const app = appShell(auth, report);
  if (personTokens !== undefined) app.use(personSessionGuard(sessions, personTokens));
  const feed: EventFeed = options.events ?? { subscribe: (listener) => runtime.subscribe(listener) };
  const history = auditHistory(feed, HISTORY_LIMIT, clock);
  app
    .route('/', serviceRoutes(runtime.receiptKeys))
    .route('/', runRoutes(settings))
    .route('/', approvalRoutes(settings))
    .route('/', requestRoutes(settings))
    .route('/', connectorRoutes(settings))
    .route('/', grantRoutes(settings))
    .route('/', eventRoutes(settings, { feed, heartbeatMs: options.heartbeatMs ?? 15_000 }))
    .route('/', agentRoutes(settings))
    .route('/', inboxRoutes(settings))
    .route(
      '/',
      consoleRoutes(settings, { sessions, bearerTokens, personTokens, insecure, maxBodyBytes, clock, history }),
    )
    .route('/', consoleRecordRoutes(settings, { sessions, history, rules: options.rules, maxBodyBytes }))
    .route('/', consoleGrantRoutes(settings, { sessions, maxBodyBytes }))
    .route('/', insightsRoutes(settings, { sessions, history, clock }))
    .route('/', linkRoutes(settings, { maxBodyBytes }));
  if (options.rules !== undefined) app.route('/', ruleRoutes(settings, options.rules));
  // Mounted last, checked against every route above (middleware, registered for all methods, excepted).
  return app.route(
    '/',
    channelRoutes(
      options.channels ?? [],
      app.routes.filter((route) => route.method !== 'ALL'),
    ),
  );
}

/** The app's credentials, checked: a runtime to decide with, and a bearer token or webhook secret unless insecure. */
function credentialsOf(
  runtime: Runtime,
  options: ApprovalAppOptions,
): { bearerTokens: readonly string[]; webhookSecrets: readonly string[] } {
  if (typeof (runtime as Runtime | undefined)?.respond !== 'function') {
    throw new ConfigError(
      'createApprovalApp: the first argument must be a runtime made with createRuntime({ agents, store }).',
    );
  }
  const bearerTokens = list(options.bearerToken);
  const webhookSecrets = list(options.webhookSecret);
  const credentials = bearerTokens.length + webhookSecrets.length + (runtime.personTokens === undefined ? 0 : 1);
  if (credentials === 0 && options.insecure !== true) {
    throw new ConfigError(
      'createApprovalApp: set bearerToken and/or webhookSecret (a whsec_ secret), or make the runtime with personTokens, so that only your systems and people can approve tool calls; ' +
        'pass insecure: true only for a demo on loopback.',
    );
  }
  return { bearerTokens, webhookSecrets };
}

/** What every route group shares: the runtime, how runs go on, and the credentials each kind of route asks for. */
function routeSettingsOf(
  runtime: Runtime,
  options: ApprovalAppOptions,
  auth: AuthSettings,
  report: RouteSettings['report'],
): RouteSettings {
  const resumeMode = resumeModeOf(options.resumeMode, runtime, 'createApprovalApp');
  const writeAuth = authenticate(auth, { acceptSignature: true, readBody: true });
  const reportDedupe = (error: unknown) => report(error, { operation: 'webhook-dedupe' });
  // An enqueued decision on a store that claims a key atomically with its commit claims the webhook-id with that commit: one round trip.
  const claimedByCommit =
    resumeMode === 'enqueue' &&
    runtime.once === runtime.store.once &&
    runtime.store.appliesAtomically?.(CLAIM_PROBE) === true;
  const write = [writeAuth, claimDeliveries(runtime.once, reportDedupe)] as const;
  return {
    runtime,
    resumeMode,
    resumeTimeoutMs: options.resumeTimeoutMs ?? 10_000,
    read: authenticate(auth, { acceptSignature: false, readBody: false }),
    readPending: authenticate(auth, { acceptSignature: false, readBody: false, inboxSessions: true }),
    write,
    decide: claimedByCommit ? [writeAuth, claimDeliveries(runtime.once, reportDedupe, { inCommit: true })] : write,
    claimedByCommit,
    identity: {
      personTokens: runtime.personTokens !== undefined,
      sharedTokenDecides: options.sharedTokenDecides === true,
    },
    report,
  };
}

/** The app before its routes: problem answers for errors and unknown routes, safe headers, the body limit. */
function appShell(auth: AuthSettings, report: RouteSettings['report']): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError((error, c) => {
    const answer = problemFor(error);
    if (answer.unexpected) report(error, { operation: 'request', method: c.req.method, path: c.req.path });
    return problemResponse(answer.problem, answer.headers);
  });
  app.notFound((c) =>
    problemResponse(problem(404, 'not_found', `No route ${c.req.method} ${c.req.path}; see GET /openapi.json.`)),
  );
  app.use(safeHeaders());
  if (auth.insecure) app.use(loopbackOnly());
  // A declared length over the limit is refused before anything. Bodies are read (never past the limit, chunked ones
  // included) only by the routes that need them, after their credentials and headers are checked.
  app.use(async function declaredLength(c, next) {
    if (Number(c.req.header('content-length') ?? 0) > auth.maxBodyBytes) throw tooLarge(auth.maxBodyBytes);
    await next();
  });
  return app;
}

import type { Context } from 'hono';
import { Hono } from 'hono';
import { isLinkedRuntime, type AgentSnapshot, type PendingApprovalEntry, type PersonTokens } from '../../index.js';
import { problemFor } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { bearerMatches } from '../authenticate.js';
import { blanketDecisions } from '../blanket-decisions.js';
import type { AuditHistory } from '../console/audit-history.js';
import { argsEdit } from '../console/args-edit.js';
import { consoleAnswer } from '../console/console-answer.js';
import { consoleAsset } from '../console/console-assets.js';
import {
  consoleBlanket,
  consoleCancel,
  consoleDecision,
  consoleResponse,
  consoleSignIn,
  readConsoleBody,
} from '../console/console-body.js';
import {
  byExpiry,
  CONSOLE_HEADERS,
  cardList,
  type ConsoleFilter,
  consolePage,
  filtered,
  consoleMessagePage,
  signInPage,
  type SignInOptions,
} from '../console/console-pages.js';
import {
  type ConsoleSession,
  type ConsoleSessions,
  inboxSessionNotAllowed,
  SESSION_TTL_MS,
} from '../console/console-session.js';
import { inboxLinkToken } from '../console/inbox-link-token.js';
import { checkSignInOrigin } from '../console/sign-in-origin.js';
import { type TurnContext, turnContexts } from '../console/turn-context.js';
import { recordBatch } from '../record-batch.js';
import { recordThenAnswer } from '../record-then-answer.js';
import { runView } from '../run-view.js';
import type { RouteSettings } from './route-settings.js';

/** What the console's routes need beyond every route's settings. */
export interface ConsoleSettings {
  readonly sessions: ConsoleSessions;
  readonly bearerTokens: readonly string[];
  /** The runtime's personal tokens: a person signs in with theirs, under its name. */
  readonly personTokens: PersonTokens | undefined;
  /** No credential configured (`insecure: true`): a name alone signs in, on loopback. */
  readonly insecure: boolean;
  readonly maxBodyBytes: number;
  readonly clock: () => number;
  /** Listens from the first use of the console (a sign-in, or a page shown to a session). */
  readonly history: AuditHistory;
}

/** How many pending approvals the console reads (one store page). */
const CONSOLE_PAGE = 500;

const html = (c: Context<AppEnv>, status: number, text: string) => c.newResponse(text, status as 200, CONSOLE_HEADERS);

/** Where a form post goes back to: the console at the app's root, relative so the app can be mounted under a prefix. */
const back = (c: Context<AppEnv>, to = '../') =>
  c.newResponse(null, 303, { location: to, 'cache-control': 'no-store' });

/** The run's view in a decision's answer: a token session's only (an inbox shows no run's audit or output). */
const runOf = (session: ConsoleSession, run: AgentSnapshot) => (session.via === 'token' ? { run: runView(run) } : {});

const filterOf = (c: Context<AppEnv>): ConsoleFilter => {
  const value = (name: string) => c.req.query(name) || undefined;
  return { agent: value('agent'), tool: value('tool'), connector: value('connector'), session: value('session') };
};

/**
 * The approver's console: `GET /` (sign-in, or the pending approvals as cards), its assets, the session
 * (`POST /console/session`, `POST /console/session/end`), the cards as a fragment for the live page
 * (`GET /console/cards`), and decisions as the signed-in reviewer (`POST /console/decide`, `POST /console/decide-all`
 * of the listed approvals only), and Cancel run of an approved card's run (`POST /console/cancel`, a token session's only),
 * each from a form (answered with a redirect back) or the script (answered with JSON), CSRF checked.
 */
export function consoleRoutes(settings: RouteSettings, own: ConsoleSettings): Hono<AppEnv> {
  const { runtime } = settings;
  const app = new Hono<AppEnv>();
  const { recordMode, carryOn, late } = recordThenAnswer(settings);
  const ctx: ConsoleContext = {
    ...settings,
    recordMode,
    carryOn,
    late,
    own,
    signInOptions: {
      token: !own.insecure,
      inbox: isLinkedRuntime(runtime),
      personal: own.personTokens !== undefined,
      name: own.personTokens === undefined || settings.identity.sharedTokenDecides,
    },
    pending: async () => [...(await runtime.pending({ limit: CONSOLE_PAGE })).items],
    contextsFor: (session, shown) =>
      session.via === 'token' ? turnContexts(runtime, shown) : Promise.resolve(new Map()),
  };
  pageRoutes(app, ctx);
  decisionRoutes(app, ctx);
  return app;
}

/** What the console's routes share: the route settings, how a decision is recorded and carried on, and the pending approvals. */
interface ConsoleContext
  extends RouteSettings,
    Pick<ReturnType<typeof recordThenAnswer>, 'recordMode' | 'carryOn' | 'late'> {
  readonly own: ConsoleSettings;
  readonly signInOptions: SignInOptions;
  readonly pending: () => Promise<PendingApprovalEntry[]>;
  /**
   * What led to each shown call, for a token session. An inbox session gets none: the inbox shows no model or user
   * text, and a session it signed in sees no more than the inbox does.
   */
  readonly contextsFor: (
    session: ConsoleSession,
    shown: readonly PendingApprovalEntry[],
  ) => Promise<ReadonlyMap<string, TurnContext>>;
}

/** The pages, their assets, signing in and out, and the cards fragment. */
function pageRoutes(app: Hono<AppEnv>, ctx: ConsoleContext): void {
  app.get('/', async (c) => {
    const session = ctx.own.sessions.read(c);
    if (session === undefined) return html(c, 200, signInPage(ctx.signInOptions));
    ctx.own.history.start();
    const entries = await ctx.pending();
    const filter = filterOf(c);
    return html(
      c,
      200,
      consolePage(session, entries, filter, await ctx.contextsFor(session, filtered(entries, filter))),
    );
  });

  app.get('/console/assets/:name', async (c) => {
    const asset = await consoleAsset(c.req.param('name'));
    return c.body(asset.text, 200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
  });

  app.post('/console/session', async (c) => {
    checkSignInOrigin(c);
    ctx.own.history.start();
    const { fields } = await readConsoleBody(c, consoleSignIn, ctx.own.maxBodyBytes);
    const refuse = (error: string) => html(c, 401, signInPage({ ...ctx.signInOptions, error }));
    if (fields.inbox !== undefined) {
      const token = inboxLinkToken(fields.inbox);
      if (token === undefined || !isLinkedRuntime(ctx.runtime))
        return refuse('That is not an inbox link of this server.');
      try {
        const inbox = await ctx.runtime.reviewInbox(token, { limit: 1 });
        ctx.own.sessions.issue(
          c,
          inbox.reviewer,
          'inbox',
          Math.min(inbox.expiresAt, ctx.own.clock() + SESSION_TTL_MS),
          {
            inboxToken: token,
          },
        );
      } catch (error) {
        if (problemFor(error).unexpected) throw error;
        return refuse('That inbox link is expired or not valid; ask for a new one.');
      }
      return back(c);
    }
    const person = fields.token === undefined ? undefined : await ctx.own.personTokens?.verify(fields.token);
    if (person !== undefined) {
      // The token names the person: a name typed beside it is never what decisions are recorded under.
      const until = Math.min(person.expiresAt ?? Number.POSITIVE_INFINITY, ctx.own.clock() + SESSION_TTL_MS);
      ctx.own.sessions.issue(c, person.person, 'token', until, { tokenId: person.id });
      return back(c);
    }
    if (ctx.identity.personTokens && !ctx.identity.sharedTokenDecides)
      return refuse(
        'That is not a live personal token: sign in with your own (the shared API token does not decide here).',
      );
    if (fields.name === undefined) return refuse('Enter your name: it is recorded with each decision.');
    if (!ctx.own.insecure && (fields.token === undefined || !bearerMatches(fields.token, ctx.own.bearerTokens)))
      return refuse('That API token is not right.');
    ctx.own.sessions.issue(c, fields.name, 'token', ctx.own.clock() + SESSION_TTL_MS);
    return back(c);
  });

  app.post('/console/session/end', async (c) => {
    ctx.own.sessions.require(c);
    const { fields } = await readConsoleBody(c, consoleBlanket.pick({ csrf: true }), ctx.own.maxBodyBytes);
    ctx.own.sessions.requireWrite(c, fields);
    ctx.own.sessions.end(c);
    return back(c, '../../');
  });

  app.get('/console/cards', async (c) => {
    const session = ctx.own.sessions.require(c);
    const shown = filtered(await ctx.pending(), filterOf(c)).sort(byExpiry);
    return html(c, 200, cardList(shown, session, await ctx.contextsFor(session, shown)));
  });
}

/** Decisions as the signed-in reviewer (one, or all of a run's listed approvals) and Cancel run. */
function decisionRoutes(app: Hono<AppEnv>, ctx: ConsoleContext): void {
  app.post('/console/decide', async (c) => {
    ctx.own.sessions.require(c);
    const { fields, json } = await readConsoleBody(c, consoleDecision, ctx.own.maxBodyBytes);
    const session = ctx.own.sessions.requireWrite(c, fields);
    // The inbox offers no edit, so a session it signed in cannot change what runs.
    if (session.via === 'inbox' && fields.args !== undefined) throw inboxSessionNotAllowed('editing arguments');
    try {
      const answer = fields.decision === 'answer' ? await consoleAnswer(ctx.runtime, fields) : undefined;
      const response = consoleResponse(fields, session.reviewer, answer);
      const recorded = await ctx.runtime.decide(fields.runId, response, {
        mode: ctx.resumeMode,
        waitMs: ctx.resumeTimeoutMs,
        onLateError: ctx.late('resume'),
      });
      const run = recorded.snapshot;
      if (fields.args !== undefined && !recorded.duplicate) {
        const edit = argsEdit(run, fields.approvalId, fields.args, ctx.runtime.agent(run.agentName).settings.display);
        if (edit !== undefined) ctx.own.history.noteEdit(fields.approvalId, edit);
      }
      const vote = recorded.vote === undefined ? {} : { vote: recorded.vote };
      return json
        ? c.json({ status: run.status, duplicate: recorded.duplicate, ...vote, ...runOf(session, run) })
        : back(c);
    } catch (error) {
      if (json) throw error;
      return refusedPage(c, session, error);
    }
  });

  app.post('/console/decide-all', async (c) => {
    ctx.own.sessions.require(c);
    const { fields, json } = await readConsoleBody(c, consoleBlanket, ctx.own.maxBodyBytes);
    const session = ctx.own.sessions.requireWrite(c, fields);
    try {
      const run = await ctx.runtime.get(fields.runId);
      const items = blanketDecisions(
        run,
        {
          approved: fields.decision === 'approve',
          approvedBy: session.reviewer,
          reason: fields.reason,
          signatures: fields.signatures,
          approvalIds: fields.approvalIds,
        },
        ctx.runtime.agent(run.agentName).settings.decisionSecret !== undefined,
      );
      const batch = await recordBatch(ctx.runtime, run, items, ctx.recordMode, (error) =>
        ctx.report(error, { operation: 'request', runId: run.runId, method: 'POST', path: c.req.path }),
      );
      let latest = batch.latest;
      if (batch.recorded && latest.status === 'running' && ctx.resumeMode === 'inline') {
        const outcome = await ctx.carryOn(ctx.runtime.resume(run.runId), 'resume', run.runId);
        if (outcome.done) latest = outcome.value;
      }
      return json ? c.json({ status: latest.status, ...runOf(session, latest), results: batch.results }) : back(c);
    } catch (error) {
      if (json) throw error;
      return refusedPage(c, session, error);
    }
  });

  app.post('/console/cancel', async (c) => {
    ctx.own.sessions.require(c);
    const { fields, json } = await readConsoleBody(c, consoleCancel, ctx.own.maxBodyBytes);
    const session = ctx.own.sessions.requireWrite(c, fields);
    // An inbox decides pending approvals only; stopping a run is the operator's, as `POST /runs/:runId/cancel` is.
    if (session.via !== 'token') throw inboxSessionNotAllowed('cancelling a run');
    try {
      const run = await ctx.runtime.cancel(
        fields.runId,
        fields.reason ?? `cancelled from the console by ${session.reviewer}`,
      );
      return json ? c.json({ status: run.status, ...runOf(session, run) }) : back(c);
    } catch (error) {
      if (json) throw error;
      return refusedPage(c, session, error);
    }
  });
}

/** A refused form post, told as a page with the way back (the script gets the problem as JSON instead). */
function refusedPage(c: Context<AppEnv>, session: ConsoleSession, error: unknown) {
  const answer = problemFor(error);
  if (answer.unexpected) throw error;
  return html(c, answer.problem.status, consoleMessagePage(session, 'Not decided', answer.problem.detail, '../'));
}

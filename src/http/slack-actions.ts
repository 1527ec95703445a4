import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { z } from 'zod';
import type { LinkedRuntime, LinkRespondResult } from '../runtime/runtime.js';
import type { AppEnv } from './app-env.js';
import { classifyRefusal, linkRun } from '../channels/refusal.js';
import { decideWithLink } from '../channels/decide-click.js';
import { HttpProblem, problem } from '../web/problem.js';
import { parseJsonBody, readRawBody } from '../web/read-body.js';
import { escapeSlack, SLACK_ACTION_IDS, slackWho } from './slack-message.js';

/**
 * The `slack` option of `createApprovalApp`: what `POST /slack/actions`
 * needs to take button clicks from a Slack app.
 *
 * @example
 * createApprovalApp(runtime, { bearerToken, slack: { signingSecret: process.env.SLACK_SIGNING_SECRET! } });
 */
export interface SlackActionsOptions {
  /** The Slack app's signing secret (Basic Information → App Credentials); two while you regenerate it. */
  readonly signingSecret: string | readonly string[];
  /** Origins a payload's `response_url` may point to; others are never called. Default `['https://hooks.slack.com']`. */
  readonly responseUrlOrigins?: readonly string[];
  /** Used to post outcomes to `response_url`. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
}

/** What the app hands the route besides the user's options. */
export interface SlackActionsSettings extends SlackActionsOptions {
  readonly clock: () => number;
  readonly maxBodyBytes: number;
  readonly resumeMode: 'inline' | 'enqueue';
  readonly resumeTimeoutMs: number;
  readonly onError: (error: unknown, context: { readonly operation: string; readonly runId?: string }) => void;
}

/** Slack's tolerance for request timestamps, either way. */
const TOLERANCE_SECONDS = 300;

const payloadSchema = z.looseObject({
  type: z.string().max(64),
  user: z.looseObject({ id: z.string().regex(/^[A-Z0-9]{1,64}$/, 'must be a Slack user id') }).optional(),
  actions: z.array(z.looseObject({ action_id: z.string().max(255), value: z.string().max(4096).optional() })).max(25).optional(),
  response_url: z.string().max(2048).optional(),
});

/** What Slack is told once the decision settles: replace the message, or tell only the person who clicked. */
interface Reply {
  readonly text: string;
  readonly replace: boolean;
}

function refused(detail: string, reason: string): HttpProblem {
  return new HttpProblem(problem(401, 'invalid_slack_signature', `The Slack request signature was refused: ${detail}.`, { reason }));
}

/** Checks the headers before the body is read; throws a 401 problem. */
function checkHeaders(timestamp: string | undefined, signature: string | undefined, nowSeconds: number): { timestamp: string; signature: string } {
  if (!timestamp || !signature) throw refused('X-Slack-Request-Timestamp and X-Slack-Signature are both required', 'missing_headers');
  if (!/^\d{1,15}$/.test(timestamp)) throw refused('X-Slack-Request-Timestamp must be whole seconds since the epoch', 'bad_timestamp');
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw refused(`X-Slack-Request-Timestamp is more than ${TOLERANCE_SECONDS} s away from the server clock`, 'stale_timestamp');
  }
  return { timestamp, signature };
}

/** Checks `X-Slack-Signature` (`v0=` hex HMAC-SHA256 of `v0:timestamp:body`) against every secret, in constant time; throws a 401 problem. */
function verifySignature(secrets: readonly string[], timestamp: string, signature: string, body: string): void {
  const offered = /^v0=([0-9a-f]{64})$/.exec(signature);
  const presented = Buffer.from(offered?.[1] ?? '0'.repeat(64), 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest();
    ok = timingSafeEqual(presented, expected) || ok;
  }
  if (!offered || !ok) throw refused('no v0 signature matches the raw body', 'bad_signature');
}

/**
 * The route behind `POST /slack/actions`: takes a Slack app's interactivity
 * request (a Block Kit button click), verifies Slack's signature over the raw
 * body (±300 s, constant time) and answers 200 with an empty body at once,
 * as Slack wants within 3 s. The decision is made in the background: the
 * button's value is a one-click link token, spent with
 * `runtime.respondWithLink` as `slack:<user id>`. When it settles the outcome
 * is posted to the payload's `response_url` (only on an allowed origin, no
 * redirects followed): the message is replaced with who decided and how the
 * run stands, or the clicker alone is told why nothing happened.
 *
 * @example
 * const app = new Hono<AppEnv>();
 * app.post('/slack/actions', slackActions(runtime, { signingSecret, clock: Date.now, maxBodyBytes: 65_536, resumeMode: 'inline', resumeTimeoutMs: 10_000, onError: report }));
 */
export function slackActions(runtime: LinkedRuntime, settings: SlackActionsSettings) {
  const secrets: readonly string[] = typeof settings.signingSecret === 'string' ? [settings.signingSecret] : settings.signingSecret;
  const origins = new Set((settings.responseUrlOrigins ?? ['https://hooks.slack.com']).map((origin) => new URL(origin).origin));
  const fetchImpl = settings.fetch ?? globalThis.fetch;
  const report = (error: unknown, operation: string, runId?: string) => {
    try {
      settings.onError(error, runId === undefined ? { operation } : { operation, runId });
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };
  /** Reports a failure about the click on `token`, naming its run when the runtime can tell (only it can open a token). */
  const reportClick = (error: unknown, operation: string, token: string) => void linkRun(runtime, token).then(({ runId }) => report(error, operation, runId));

  const outcomeReply = (result: LinkRespondResult, user: string): Reply => {
    const entry = result.snapshot.audit.find((item) => item.approvalId === result.approvalId);
    const tool = entry ? ` *${escapeSlack(entry.toolName)}*,` : '';
    if (result.duplicate) {
      return { text: `Already ${entry?.decision ?? 'decided'} by ${slackWho(entry?.by)}:${tool} run is ${result.status}.`, replace: true };
    }
    const verb = entry?.decision === 'denied' ? 'Denied' : 'Approved';
    return { text: `${verb} by ${entry ? slackWho(entry.by) : `<@${user}>`}:${tool} run is ${result.status}.`, replace: true };
  };

  const refusalReply = async (error: unknown, token: string, user: string): Promise<Reply> => {
    const refusal = await classifyRefusal(runtime, error);
    switch (refusal.kind) {
      case 'used': {
        const who = refusal.entry ? `${refusal.entry.decision} by ${slackWho(refusal.entry.by)}` : 'decided';
        return { text: `Already ${who}; this button was used before, so nothing was done again.`, replace: true };
      }
      case 'expired':
        return { text: 'These buttons have expired; nothing was done. Ask the agent again.', replace: true };
      case 'invalid':
        return { text: 'This button is not valid (its token does not verify); nothing was done.', replace: false };
      case 'conflict':
        return { text: `Already ${refusal.winner?.decision ?? 'decided'} by ${slackWho(refusal.winner?.by)}; your click changed nothing.`, replace: true };
      case 'approval_expired':
        return { text: 'This approval expired before the click; nothing was done.', replace: true };
      case 'gone':
        return { text: 'This approval is no longer pending; nothing was done.', replace: true };
      case 'not_allowed':
        return { text: `<@${user}> may not decide this approval; nothing was done. Ask one of its approvers.`, replace: false };
      case 'store':
        return { text: 'Your decision could not be recorded just now; click again in a moment.', replace: false };
      case 'unexpected':
        reportClick(error, 'slack-action', token);
        return {
          text: refusal.config ? 'Approvals from Slack are not set up on this server; nothing was done.' : 'Something went wrong; your decision may not be recorded. Try again.',
          replace: false,
        };
    }
  };

  const tell = async (responseUrl: string, reply: Reply, token: string) => {
    const failed = (error: unknown) => reportClick(error, 'slack-response', token);
    let url: URL;
    try {
      url = new URL(responseUrl);
    } catch {
      return failed(new Error('Slack sent a response_url that is not a URL; the outcome was not posted.'));
    }
    if (!origins.has(url.origin) || url.username !== '' || url.password !== '') {
      return failed(new Error(`Slack sent a response_url on ${url.origin}, not on an allowed origin (${[...origins].join(', ')}); the outcome was not posted.`));
    }
    const body = JSON.stringify(reply.replace ? { replace_original: true, text: reply.text } : { replace_original: false, response_type: 'ephemeral', text: reply.text });
    for (let tries = 1; ; tries++) {
      try {
        const response = await fetchImpl(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(10_000),
        });
        await response.body?.cancel().catch(() => {});
        if (response.ok) return;
        if (response.status < 500 || tries >= 2) return failed(new Error(`Slack answered the response_url post with HTTP ${response.status}.`));
      } catch (error) {
        if (tries >= 2) return failed(error);
      }
    }
  };

  const decide = async (token: string, user: string, responseUrl: string | undefined) => {
    let reply: Reply;
    try {
      const { result, carryingOn } = await decideWithLink(runtime, token, {
        resumeMode: settings.resumeMode,
        resumeTimeoutMs: settings.resumeTimeoutMs,
        approvedBy: `slack:${user}`,
        onLateError: (error, runId) => report(error, 'resume', runId),
      });
      if (carryingOn) {
        reply = { text: `Decision by <@${user}> recorded; the run is carrying on.`, replace: true };
      } else {
        reply = outcomeReply(result, user);
      }
    } catch (error) {
      reply = await refusalReply(error, token, user);
    }
    if (responseUrl !== undefined) await tell(responseUrl, reply, token);
  };

  return async function slackActionsHandler(c: Context<AppEnv>): Promise<Response> {
    const headers = checkHeaders(c.req.header('x-slack-request-timestamp'), c.req.header('x-slack-signature'), Math.floor(settings.clock() / 1000));
    const raw = await readRawBody(c.req.raw, settings.maxBodyBytes);
    verifySignature(secrets, headers.timestamp, headers.signature, raw);
    const form = new URLSearchParams(raw).get('payload');
    if (form === null) throw new HttpProblem(problem(400, 'invalid_body', 'The body has no payload field; Slack sends application/x-www-form-urlencoded with payload=<JSON>.'));
    const payload = parseJsonBody(payloadSchema, form);
    const ours = new Set<string>(Object.values(SLACK_ACTION_IDS));
    const action = payload.type === 'block_actions' ? payload.actions?.find((item) => ours.has(item.action_id)) : undefined;
    // Other interactions (and other apps' buttons) are acknowledged and left alone.
    if (!action) return c.body(null, 200);
    if (payload.user === undefined || action.value === undefined) {
      throw new HttpProblem(problem(400, 'invalid_body', 'A block_actions payload needs user.id and the action\'s value.'));
    }
    const task = decide(action.value, payload.user.id, payload.response_url).catch((error: unknown) => report(error, 'slack-action'));
    try {
      // Serverless platforms with an execution context keep the function alive for the background work.
      c.executionCtx.waitUntil(task);
    } catch {
      // Node has no execution context: the process stays up anyway.
    }
    return c.body(null, 200);
  };
}

import { z } from 'zod';
import { ConfigError, isCountersignError } from '../errors.js';
import { functionSchema } from '../machine/function-schema.js';
import { publicError, publicText } from '../machine/public-text.js';
import { httpUrlSchema } from '../machine/url-schema.js';
import type { Notifier } from '../ports/notifier.js';
import type { RunEvent } from '../machine/run-events.js';
import type { AuditEntry } from '../machine/types.js';
import type { LinkedRuntime } from '../runtime/runtime.js';
import { approvalMessage, escapeSlack, fitSlack, slackWho } from './slack-message.js';
import { parseOptions, optionsObject } from '../options.js';

/**
 * What the Slack notifier was doing when something failed, for `onError`.
 *
 * @example
 * createSlackNotifier({ runtime, webhookUrl, onError: (error, { operation, runId }) => log.warn({ err: error, operation, runId }, 'slack') });
 */
export interface SlackNotifierErrorContext {
  /** `links` (no token could be minted, e.g. a runtime without `links`), `post` (Slack refused or could not be reached after the last try). */
  readonly operation: 'links' | 'post';
  readonly runId: string;
  readonly approvalId?: string;
}

/**
 * Options of `createSlackNotifier`: a runtime made with `links`, and either
 * an incoming-webhook URL or a bot token plus a channel.
 *
 * @example
 * const options: SlackNotifierOptions = { runtime, token: process.env.SLACK_BOT_TOKEN!, channel: 'C0123456789', linkTtlMs: 3_600_000 };
 */
export interface SlackNotifierOptions {
  /** Mints the buttons' one-click tokens; must be made with `createRuntime({ links: { secret, baseUrl } })`. */
  readonly runtime: LinkedRuntime;
  /** An incoming-webhook URL (`https://hooks.slack.com/services/...`); a secret, never logged. */
  readonly webhookUrl?: string;
  /** A bot token (`xoxb-...`) with `chat:write`, used with `channel` through `chat.postMessage`. */
  readonly token?: string;
  /** Channel id (or name) the bot posts to; needed with `token`. */
  readonly channel?: string;
  /** Slack's Web API base. Default `https://slack.com/api`. */
  readonly apiUrl?: string;
  /** How long the buttons work (never past the approval's own expiry). Default: the runtime's `links.expiresInMs` (24 h). */
  readonly linkTtlMs?: number;
  /** Post a short line when an approval is decided other than by a click in Slack (an email link, the API, expiry). Default true. */
  readonly announceResolved?: boolean;
  /** Tries per message, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** Wait before the second try, doubled for each next one; a 429's `Retry-After` is honoured up to 30 s. Default 1000 ms. */
  readonly backoffMs?: number;
  /** One try is abandoned after this long. Default 10,000 ms. */
  readonly timeoutMs?: number;
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Waits between tries; inject one that returns at once in tests. Default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Failures, which never reach the run; their messages hold no URL (a webhook URL is a secret), only its host. */
  readonly onError?: (error: unknown, context: SlackNotifierErrorContext) => void;
}

/**
 * A `Notifier` that asks a Slack channel to decide approvals.
 *
 * @example
 * const slack: SlackNotifier = createSlackNotifier({ runtime, webhookUrl });
 * runtime.subscribe((event) => void slack.publish([event]));
 * await slack.flush(); // before the process exits
 */
export interface SlackNotifier extends Notifier {
  /** Queues the messages for these events and returns at once. */
  publish(events: readonly RunEvent[]): Promise<void>;
  /** Resolves once every queued message was posted or given up on. */
  flush(): Promise<void>;
}

const optionsSchema = optionsObject(
  {
    runtime: z.custom<LinkedRuntime>((value) => typeof (value as LinkedRuntime | undefined)?.linkTokens === 'function', 'must be a runtime made with createRuntime({ agents, links })'),
    webhookUrl: httpUrlSchema({ example: 'https://hooks.slack.com/services/T000/B000/XXXX', credential: 'token (a bot token with chat:write)' }).optional(),
    token: z.string().regex(/^[\x21-\x7e]{8,512}$/, 'must be a Slack token (xoxb-...)').optional(),
    channel: z.string().min(1).max(256).optional(),
    apiUrl: httpUrlSchema({ example: 'https://slack.com/api', credential: 'token' }).optional(),
    linkTtlMs: z.number().int().positive().optional(),
    announceResolved: z.boolean().optional(),
    maxAttempts: z.number().int().min(1).max(10).optional(),
    backoffMs: z.number().int().min(0).max(60_000).optional(),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
    fetch: functionSchema().optional(),
    sleep: functionSchema().optional(),
    onError: functionSchema().optional(),
  },
);

/** An error Slack (or the network) gave; `retry` says whether another try could help. */
class SlackPostError extends Error {
  readonly retry: boolean;
  readonly waitMs: number | undefined;

  constructor(message: string, retry: boolean, waitMs?: number) {
    // onError output is logged: a URL here could be the webhook URL, which is the secret.
    super(publicText(message));
    this.name = 'SlackPostError';
    this.retry = retry;
    this.waitMs = waitMs;
  }
}

/** Slack's Web API errors that a later try may not repeat. */
const TRANSIENT_API_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

function resolvedLine(entry: AuditEntry): string {
  const how = entry.source === 'expiry' ? 'expired and was denied' : `was ${entry.decision} by ${slackWho(entry.by)}`;
  return fitSlack(`Approval \`${escapeSlack(entry.approvalId ?? '')}\` (*${escapeSlack(entry.toolName)}*) ${how}.`, 3000);
}

/**
 * A notifier that posts each `approval-requested` event to Slack as a Block
 * Kit message with Approve and Deny buttons, through an incoming webhook or
 * `chat.postMessage`. Each button's `value` is a single-use one-click link
 * token (`runtime.approvalLinks`), so the decision needs no other state;
 * mount `createApprovalApp(runtime, { slack: { signingSecret } })` as the
 * Slack app's interactivity URL to receive the clicks. The arguments shown
 * are the request's redacted display copy, and everything from the model is
 * escaped, so it cannot mention `@channel` or forge links.
 *
 * The runtime cannot be checked for `links` here (it says so only when asked
 * for a link): without them the first approval is not posted and a
 * `ConfigError` goes to `onError`. Failures are retried a few times and then
 * go to `onError`; they never reach the run.
 *
 * @example
 * import { createRuntime } from 'countersign';
 * import { createSlackNotifier } from 'countersign/http';
 *
 * const runtime = createRuntime({ agents: [agent], store, links: { secret: process.env.LINK_SECRET!, baseUrl: 'https://approvals.example.com' } });
 * const slack = createSlackNotifier({ runtime, webhookUrl: process.env.SLACK_WEBHOOK_URL!, onError: (error) => log.warn(error) });
 * runtime.subscribe((event) => void slack.publish([event]));
 */
export function createSlackNotifier(options: SlackNotifierOptions): SlackNotifier {
  parseOptions(optionsSchema, options, 'createSlackNotifier');
  const viaWebhook = options.webhookUrl !== undefined;
  if (viaWebhook === (options.token !== undefined)) {
    throw new ConfigError('createSlackNotifier: pass either webhookUrl (an incoming webhook) or token and channel (a bot with chat:write), not both and not neither.', 'missing_option');
  }
  if (!viaWebhook && options.channel === undefined) {
    throw new ConfigError('createSlackNotifier: token needs a channel to post to, e.g. channel: "C0123456789".', 'missing_option');
  }
  const { runtime } = options;
  const apiUrl = (options.apiUrl ?? 'https://slack.com/api').replace(/\/+$/, '');
  const maxAttempts = options.maxAttempts ?? 3;
  const backoffMs = options.backoffMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const announceResolved = options.announceResolved ?? true;
  /** Where the bot posted each approval (`ts`), so its outcome goes into the thread. */
  const posted = new Map<string, string>();
  const inflight = new Set<Promise<void>>();
  const tails = new Map<string, Promise<void>>();

  const report = (error: unknown, context: SlackNotifierErrorContext) => {
    try {
      options.onError?.(publicError(error), context);
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };

  /** One try; resolves with chat.postMessage's `ts` (or undefined for a webhook), throws SlackPostError. */
  const postOnce = async (message: Record<string, unknown>): Promise<string | undefined> => {
    const target = viaWebhook ? options.webhookUrl! : `${apiUrl}/chat.postMessage`;
    const body = viaWebhook ? message : { channel: options.channel, ...message };
    let response: Response;
    try {
      response = await fetchImpl(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          ...(viaWebhook ? {} : { authorization: `Bearer ${options.token!}` }),
        },
        body: JSON.stringify({ ...body, unfurl_links: false, unfurl_media: false }),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new SlackPostError(`Slack could not be reached: ${error instanceof Error ? error.message : String(error)}`, true);
    }
    const text = (await response.text().catch(() => '')).slice(0, 2000);
    if (response.status === 429) {
      const seconds = Number(response.headers.get('retry-after'));
      throw new SlackPostError('Slack answered HTTP 429 (rate limited)', true, Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : undefined);
    }
    if (response.status < 200 || response.status >= 300) {
      const hint = response.status >= 300 && response.status < 400 ? ' (a redirect, not followed)' : '';
      throw new SlackPostError(`Slack answered HTTP ${response.status}${hint}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`, response.status >= 500 || response.status === 408);
    }
    if (viaWebhook) return undefined;
    let answer: { ok?: unknown; error?: unknown; ts?: unknown };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new SlackPostError('Slack answered chat.postMessage with a body that is not JSON', true);
    }
    if (answer.ok !== true) {
      const code = typeof answer.error === 'string' ? answer.error : 'unknown_error';
      throw new SlackPostError(`Slack refused chat.postMessage: ${code}`, TRANSIENT_API_ERRORS.has(code));
    }
    return typeof answer.ts === 'string' ? answer.ts : undefined;
  };

  const post = async (message: Record<string, unknown>): Promise<string | undefined> => {
    for (let tries = 1; ; tries++) {
      try {
        return await postOnce(message);
      } catch (error) {
        if (!(error instanceof SlackPostError) || !error.retry || tries >= maxAttempts) throw error;
        await sleep(error.waitMs ?? backoffMs * 2 ** (tries - 1));
      }
    }
  };

  const ask = async (event: Extract<RunEvent, { type: 'approval-requested' }>) => {
    const { runId, request } = event;
    let links: Awaited<ReturnType<LinkedRuntime['linkTokens']>>;
    try {
      links = await runtime.linkTokens(runId, request.approvalId, options.linkTtlMs === undefined ? {} : { expiresIn: options.linkTtlMs });
    } catch (error) {
      // Decided (or gone) before its turn came: there is nothing left to ask.
      if (isCountersignError(error) && (error.code === 'unknown_approval' || error.code === 'run_not_found')) return;
      const refusal =
        error instanceof ConfigError && /links/.test(error.message)
          ? new ConfigError('createSlackNotifier: the runtime has no one-click links, so the buttons would carry nothing; create it with createRuntime({ links: { secret, baseUrl } }).')
          : error;
      report(refusal, { operation: 'links', runId, approvalId: request.approvalId });
      return;
    }
    const token = (value: string) => value;
    if (token(links.approve).length > 2000 || token(links.deny).length > 2000) {
      // Slack refuses a button value over 2000 characters, and with it the whole message.
      report(new ConfigError(`createSlackNotifier: the link tokens of approval ${request.approvalId} are longer than Slack's 2000-character button value; use shorter run ids.`), { operation: 'links', runId, approvalId: request.approvalId });
      return;
    }
    const message = approvalMessage({ runId, agentName: event.agentName, request, tokens: { approve: token(links.approve), deny: token(links.deny) }, expiresAt: links.expiresAt });
    try {
      const ts = await post(message);
      if (ts !== undefined && announceResolved) {
        posted.set(`${runId}\n${request.approvalId}`, ts);
        // Approvals that are never decided must not grow the map without end.
        if (posted.size > 10_000) posted.delete(posted.keys().next().value!);
      }
    } catch (error) {
      report(error, { operation: 'post', runId, approvalId: request.approvalId });
    }
  };

  const tell = async (event: Extract<RunEvent, { type: 'approval-resolved' }>) => {
    const { entry, runId } = event;
    // A click in Slack already rewrote the message; decisions nobody was asked for are only in the audit.
    if (entry.approvalId === undefined || entry.by?.startsWith('slack:') || entry.source === 'rule' || entry.source === 'memory') return;
    const key = `${runId}\n${entry.approvalId}`;
    const ts = posted.get(key);
    posted.delete(key);
    try {
      await post({ text: resolvedLine(entry), ...(ts === undefined ? {} : { thread_ts: ts }) });
    } catch (error) {
      report(error, { operation: 'post', runId, approvalId: entry.approvalId });
    }
  };

  const enqueue = (runId: string, work: () => Promise<void>) => {
    const task = (tails.get(runId) ?? Promise.resolve()).then(work).catch(() => {});
    tails.set(runId, task);
    inflight.add(task);
    void task.then(() => {
      inflight.delete(task);
      if (tails.get(runId) === task) tails.delete(runId);
    });
  };

  return {
    async publish(events) {
      for (const event of events) {
        if (event.type === 'approval-requested') enqueue(event.runId, () => ask(event));
        else if (event.type === 'approval-resolved' && announceResolved) enqueue(event.runId, () => tell(event));
      }
    },
    async flush() {
      while (inflight.size > 0) await Promise.all([...inflight]);
    },
  };
}

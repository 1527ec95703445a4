// The Slack channel on the kit: a card per approval posted through an incoming webhook or a bot (chat.postMessage),
// updated in place by the bot (chat.update) when the approval is decided elsewhere, expires, or its call ends.
import { z } from 'zod';
import {
  createChannelNotifier,
  type ChannelDriver,
  type ChannelNotifier,
  type CardUpdate,
} from '../channel-notifier.js';
import { channelOptionsShape, channelSettings, type ChannelOptions } from '../channel-options.js';
import type { LinkedRuntime } from '../../index.js';
import { outcomeLine, sendJson, httpUrlSchema, optionsObject, parseOptions } from '../../kit/index.js';
import { ConfigError } from '../../errors.js';
import { callSlack, DEFAULT_API_URL, SLACK_TOKEN_PATTERN, type SlackApi } from './slack-api.js';
import { answeredCard, approvalCard, type SlackMessage } from './slack-card.js';
import { slackEscape, slackMarkup } from './slack-markup.js';

/**
 * Options of `createSlackNotifier`: the options every channel takes, and
 * either an incoming-webhook URL or a bot token plus a default channel.
 *
 * @example
 * const options: SlackNotifierOptions = { runtime, token: process.env.SLACK_BOT_TOKEN!, channel: 'C0123456789', linkTtlMs: 3_600_000 };
 */
export interface SlackNotifierOptions extends ChannelOptions {
  /** An incoming-webhook URL (`https://hooks.slack.com/services/...`); a secret, never logged. Its cards cannot be edited: outcomes are posted as lines. */
  readonly webhookUrl?: string;
  /** A bot token (`xoxb-...`) with `chat:write`, used with `channel`; its cards are edited in place. */
  readonly token?: string;
  /** The channel id the bot asks in, unless a run came from a Slack channel (`origin: { channel: 'slack', address: 'C…' }`). */
  readonly channel?: string;
  /** Slack's Web API base. Default `https://slack.com/api`. */
  readonly apiUrl?: string;
}

/** Where a bot's card is, and what it asked, to show again once answered. */
interface SlackRef {
  readonly channel: string;
  readonly ts: string;
  readonly summary: string;
}

const optionsSchema = optionsObject({
  ...channelOptionsShape,
  webhookUrl: httpUrlSchema({
    example: 'https://hooks.slack.com/services/T000/B000/XXXX',
    credential: 'token (a bot token with chat:write)',
  }).optional(),
  token: z.string().regex(SLACK_TOKEN_PATTERN, 'must be a Slack bot token (xoxb-...)').optional(),
  channel: z
    .string()
    .regex(/^[^\s]{1,256}$/, 'must be a channel id, e.g. C0123456789')
    .optional(),
  apiUrl: httpUrlSchema({ example: DEFAULT_API_URL, credential: 'token' }).optional(),
});

/** The lines an answered card shows: the decision, and for a finished call the decision (from the run's audit) then its end. */
async function outcomeLines(runtime: LinkedRuntime, update: CardUpdate<SlackRef>): Promise<string[]> {
  const last = outcomeLine(update.outcome, slackMarkup);
  if (update.outcome.kind === 'decided') return [last];
  const entry = await runtime
    .get(update.runId)
    .then((run) => run.audit.find((item) => item.approvalId === update.approvalId))
    .catch(() => undefined);
  return entry === undefined ? [last] : [outcomeLine({ kind: 'decided', entry }, slackMarkup), last];
}

/**
 * A notifier that asks Slack to decide approvals: a Block Kit card with the
 * call's redacted arguments, its connector and warnings, and Approve,
 * Approve for this run (or session) and Deny buttons whose values are one-click tokens
 * (mount `createSlackActions` as the app's interactivity URL to take the
 * clicks). Model text is escaped, so it cannot mention `@channel`, link or
 * format.
 *
 * With `token` and `channel` (a bot with `chat:write`) the card is posted in
 * `channel`, or in the Slack channel a run came from (`origin`), and edited
 * in place (`chat.update`): its buttons go and how it ended is shown when the
 * approval is decided (in Slack or elsewhere), expires, or the approved call
 * finishes. With `webhookUrl` the card cannot be edited: a click's answer
 * rewrites it, and other outcomes are posted as a line each. Failures are
 * retried, then go to `onError`; they never reach the run.
 *
 * @example
 * import { createRuntime } from 'countersign';
 * import { createSlackNotifier } from 'countersign/slack';
 *
 * const runtime = createRuntime({ agents: [agent], store, links: { secret: process.env.LINK_SECRET! } });
 * const slack = createSlackNotifier({ runtime, token: process.env.SLACK_BOT_TOKEN!, channel: 'C0123456789', onError: (error, context) => log.warn({ err: error, ...context }) });
 * runtime.subscribe((event) => void slack.publish([event]));
 */
export function createSlackNotifier(options: SlackNotifierOptions): ChannelNotifier {
  parseOptions(optionsSchema, options, 'createSlackNotifier');
  const { webhookUrl, token, channel } = options;
  if ((webhookUrl === undefined) === (token === undefined)) {
    throw new ConfigError(
      'createSlackNotifier: pass either webhookUrl (an incoming webhook) or token and channel (a bot with chat:write), not both and not neither.',
      'missing_option',
    );
  }
  if (token !== undefined && channel === undefined) {
    throw new ConfigError(
      'createSlackNotifier: token needs a channel to post to, e.g. channel: "C0123456789".',
      'missing_option',
    );
  }
  const settings = channelSettings(options);
  const { runtime } = settings;
  const api: SlackApi | undefined =
    token === undefined
      ? undefined
      : { apiUrl: options.apiUrl ?? DEFAULT_API_URL, token, fetch: settings.fetch, timeoutMs: settings.timeoutMs };
  // The webhook URL's path is its secret, quoted in full or alone.
  const secrets = [token, webhookUrl, webhookUrl === undefined ? undefined : new URL(webhookUrl).pathname].filter(
    (secret): secret is string => secret !== undefined && secret.length > 1,
  );
  const toWebhook = (body: SlackMessage) =>
    sendJson(settings.fetch, webhookUrl!, {
      body: { ...body, unfurl_links: false, unfurl_media: false },
      timeoutMs: settings.timeoutMs,
      service: 'Slack',
    });

  const driver: ChannelDriver<SlackRef> = {
    name: 'slack',
    async post(card) {
      const { message, summary } = approvalCard(card, api !== undefined);
      if (api === undefined) {
        await toWebhook(message);
        return undefined;
      }
      const origin = card.origin?.channel === 'slack' ? card.origin : undefined;
      const target = origin?.address ?? channel!;
      const answer = await callSlack(api, 'chat.postMessage', {
        channel: target,
        ...(origin?.thread === undefined ? {} : { thread_ts: origin.thread }),
        ...message,
        unfurl_links: false,
        unfurl_media: false,
      });
      return {
        channel: typeof answer['channel'] === 'string' ? answer['channel'] : target,
        ts: String(answer['ts']),
        summary,
      };
    },
    async update(update) {
      const { ref } = update;
      if (api === undefined || ref === undefined) {
        const tool = update.outcome.kind === 'decided' ? update.outcome.entry.toolName : update.outcome.event.toolName;
        await toWebhook({
          text: `Approval \`${slackEscape(update.approvalId)}\` (*${slackEscape(tool)}*): ${outcomeLine(update.outcome, slackMarkup)}`,
        });
        return;
      }
      await callSlack(api, 'chat.update', {
        channel: ref.channel,
        ts: ref.ts,
        ...answeredCard(ref.summary, await outcomeLines(runtime, update)),
      });
    },
    redact: (text) => secrets.reduce((clean, secret) => clean.split(secret).join('[redacted]'), text),
  };
  return createChannelNotifier(driver, settings);
}

// The Discord channel notifier: a ChannelDriver on the kit that posts each approval as a card with buttons to a
// channel (the run's own, when it came from Discord) and edits that card when the approval ends or its call finishes.
import { z } from 'zod';
import { storeButtonIds } from '../button-ids.js';
import { createChannelNotifier, type ChannelNotifier } from '../channel-notifier.js';
import { channelOptionsShape, channelSettings, type ChannelOptions } from '../channel-options.js';
import { approvalLinkUrl, type LinkedRuntime } from '../../index.js';
import {
  fitEscaped,
  outcomeLine,
  type CardOutcome,
  httpUrlSchema,
  optionsObject,
  parseOptions,
} from '../../kit/index.js';
import { DISCORD_API_URL, discordApi, SNOWFLAKE_PATTERN } from './discord-api.js';
import { discordCard, NO_MENTIONS } from './discord-card.js';
import { discordMarkup } from './discord-markup.js';

/**
 * Options of `createDiscordNotifier`: the kit's channel options, a bot token and the channel to post to.
 *
 * @example
 * const options: DiscordNotifierOptions = { runtime, botToken: process.env.DISCORD_BOT_TOKEN!, channelId: '1234567890123456789' };
 */
export interface DiscordNotifierOptions extends ChannelOptions {
  /** The bot's token (Developer Portal → Bot), allowed to View Channel and Send Messages there; a secret, never reported. */
  readonly botToken: string;
  /** The channel (or thread) approvals go to, unless a run came from a Discord channel: then they go there. */
  readonly channelId: string;
  /** Default `https://discord.com/api/v10`. */
  readonly apiUrl?: string;
  /**
   * The public URL of the approval app (`createApprovalApp`): a question no Discord modal holds (more than five
   * fields, several choices, a yes/no) links to its page there. Without it, such a card says to answer in the console.
   */
  readonly baseUrl?: string;
}

/** Where a card was posted, kept so any process can edit it. */
export interface DiscordCardRef {
  readonly channelId: string;
  readonly messageId: string;
}

const snowflake = z
  .string()
  .regex(SNOWFLAKE_PATTERN, 'must be a Discord id (a snowflake, digits only; copy it with Developer Mode on)');

const optionsSchema = optionsObject({
  ...channelOptionsShape,
  botToken: z
    .string()
    .regex(/^[\w.-]{20,200}$/, 'must be the bot token from the Developer Portal (Bot → Reset Token), without "Bot "'),
  channelId: snowflake,
  apiUrl: httpUrlSchema({ example: DISCORD_API_URL, credential: 'botToken' }).optional(),
  baseUrl: httpUrlSchema({
    example: 'https://approvals.example.com',
    credential: 'no option (a link page needs none: its token is in the path)',
  }).optional(),
});

/** The line a card shows once its call finished: how it was decided first, when the run still says. */
async function finishedText(
  runtime: LinkedRuntime,
  outcome: Extract<CardOutcome, { kind: 'finished' }>,
): Promise<string> {
  const { runId, approvalId } = outcome.event;
  const entry = await runtime.get(runId).then(
    (run) => run.audit.find((item) => item.approvalId === approvalId),
    () => undefined,
  );
  const done = outcomeLine(outcome, discordMarkup);
  return entry ? `${outcomeLine({ kind: 'decided', entry }, discordMarkup)}\n${done}` : done;
}

/**
 * A notifier that asks a Discord channel to decide approvals: one message per
 * approval with Approve, Approve for this run (this session, for a run with one) and Deny buttons (each carrying a
 * short id, `cs:<id>`, that stands for its one-click token), edited in place
 * once the approval is decided anywhere, expires, or its call finishes.
 * Mentions in what the model wrote never ping (`allowed_mentions` is empty)
 * and its markdown is escaped. Take the clicks with `createDiscordInteractions`.
 *
 * @example
 * import { createRuntime } from 'countersign';
 * import { createDiscordNotifier } from 'countersign/discord';
 *
 * const runtime = createRuntime({ agents: [agent], store, links: { secret: process.env.LINK_SECRET! } });
 * const discord = createDiscordNotifier({ runtime, botToken: process.env.DISCORD_BOT_TOKEN!, channelId: '1234567890123456789' });
 * runtime.subscribe((event) => void discord.publish([event]));
 */
export function createDiscordNotifier(options: DiscordNotifierOptions): ChannelNotifier {
  parseOptions(optionsSchema, options, 'createDiscordNotifier');
  const settings = channelSettings(options);
  const { runtime, clock } = settings;
  const call = discordApi({
    apiUrl: options.apiUrl ?? DISCORD_API_URL,
    fetch: settings.fetch,
    timeoutMs: settings.timeoutMs,
    botToken: options.botToken,
  });
  return createChannelNotifier<DiscordCardRef>(
    {
      name: 'discord',
      async post(card) {
        const { origin } = card;
        const fromDiscord = origin?.channel === 'discord' ? (origin.thread ?? origin.address) : undefined;
        const channelId =
          fromDiscord !== undefined && SNOWFLAKE_PATTERN.test(fromDiscord) ? fromDiscord : options.channelId;
        const ids = await storeButtonIds(runtime.once, 'discord', card.tokens, clock());
        const page =
          options.baseUrl === undefined || card.tokens.approve === undefined
            ? undefined
            : approvalLinkUrl(options.baseUrl, card.tokens.approve);
        const message = (await call('POST', `/channels/${channelId}/messages`, discordCard(card, ids, page))) as
          | { id?: unknown }
          | undefined;
        return typeof message?.id === 'string' ? { channelId, messageId: message.id } : undefined;
      },
      async update({ ref, outcome }) {
        if (ref === undefined) return;
        const content =
          outcome.kind === 'finished' ? await finishedText(runtime, outcome) : outcomeLine(outcome, discordMarkup);
        await call('PATCH', `/channels/${ref.channelId}/messages/${ref.messageId}`, {
          content: fitEscaped(content, 2000),
          components: [],
          allowed_mentions: NO_MENTIONS,
        });
      },
      redact: (text) => text.replaceAll(options.botToken, '[bot token]'),
    },
    settings,
  );
}

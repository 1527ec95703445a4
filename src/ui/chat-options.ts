import { z } from 'zod';
import type { Runtime } from '../index.js';
import { maxBodyBytesSchema, optionsObject, parseOptions } from '../kit/index.js';
import type { ChatEventFeed } from './watch-run.js';

/**
 * Options of `createUIChatHandler` and `createAgUiHandler`.
 *
 * @example
 * const options: ChatHandlerOptions = {
 *   agent: 'files',
 *   identify: async (request) => (await auth(request))?.userId,
 * };
 */
export interface ChatHandlerOptions {
  /** The agent of the chat's runs. */
  readonly agent: string;
  /**
   * Who is chatting (and so who decides what the chat answers), from the app's own authentication: a user id, or
   * undefined to refuse the request (401). Never taken from the message body.
   */
  readonly identify: (request: Request) => string | undefined | Promise<string | undefined>;
  /** Where the streams hear about runs: the runtime (default), or a feed that carries every process's events. */
  readonly events?: ChatEventFeed;
  /** The largest request body read. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** How long a chat is remembered after its last turn. Default 30 days. */
  readonly chatTtlMs?: number;
  /** How often a waiting stream reads its run again when nothing was heard. Default 2,000 ms. */
  readonly recheckMs?: number;
  /** Failures that ended a stream early (the client sees only that it ended). */
  readonly onError?: (error: unknown) => void;
}

const DAY = 24 * 60 * 60_000;

const schema = optionsObject({
  agent: z.string().min(1),
  identify: z.custom<ChatHandlerOptions['identify']>((value) => typeof value === 'function', 'must be a function'),
  events: z
    .custom<ChatEventFeed>(
      (value) => typeof (value as { subscribe?: unknown } | undefined)?.subscribe === 'function',
      'must have subscribe(listener)',
    )
    .optional(),
  maxBodyBytes: maxBodyBytesSchema.default(1024 * 1024),
  chatTtlMs: z
    .number()
    .int()
    .min(60_000)
    .max(366 * DAY)
    .default(30 * DAY),
  recheckMs: z.number().int().min(10).max(60_000).default(2_000),
  onError: z.custom<(error: unknown) => void>((value) => typeof value === 'function', 'must be a function').optional(),
});

/** Checked chat options, with their defaults. */
export type ChatSettings = z.output<typeof schema>;

/** Checks `options` of `where` (the agent must be one of the runtime's). */
export function chatSettings(runtime: Runtime, options: ChatHandlerOptions, where: string): ChatSettings {
  const settings = parseOptions(schema, options, where);
  runtime.agent(settings.agent);
  return settings;
}

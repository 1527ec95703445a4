// A run that pauses on delete_file (its apiToken redacted in the display copy), a fake Slack on loopback, the Slack
// notifier and the Slack actions route on the same runtime: what the notifier and actions tests share.
import { afterEach, expect } from 'vitest';
import { createMemoryStore, createRuntime, type LinkedRuntime, type RunOrigin, type SnapshotStore } from 'countersign';
import type { ChannelNotifier, ChannelRoute } from 'countersign/channels';
import {
  createSlackActions,
  createSlackNotifier,
  type SlackActionsOptions,
  type SlackNotifierOptions,
} from 'countersign/slack';
import { fileAgent } from '../../support/file-agent.js';
import { BOT_TOKEN, startFakeSlack, type FakeSlack, type SlackRequest } from '../../support/fake-slack.js';
import { interact, NOW_MS, signedRequest, SIGNING_SECRET } from './interactions.js';

export const LINK_SECRET = 'link-secret-0123456789abcdef';
export { SECRET_VALUE } from '../../support/file-agent.js';

export interface World {
  readonly runtime: LinkedRuntime;
  readonly store: SnapshotStore;
  readonly slack: FakeSlack;
  readonly notifier: ChannelNotifier;
  readonly route: ChannelRoute;
  /** Paths the tool ran with. */
  readonly executed: string[];
  readonly notifierErrors: { error: unknown; operation: string }[];
  readonly routeErrors: { error: unknown; operation: string }[];
  /** Waits the notifier asked for between tries. */
  readonly waits: number[];
}

export interface WorldOptions {
  readonly store?: SnapshotStore;
  readonly slack?: FakeSlack;
  /** A bot (token, channel C0DEFAULT) instead of the default incoming webhook. */
  readonly bot?: boolean;
  readonly approvers?: string[];
  readonly approvalTtlMs?: number;
  readonly connector?: string;
  /** Holds the tool until it resolves. */
  readonly gate?: Promise<void>;
  readonly notifier?: Partial<SlackNotifierOptions>;
  /** What the notifier sees of the runtime. */
  readonly wrap?: (runtime: LinkedRuntime) => LinkedRuntime;
  readonly actions?: Partial<SlackActionsOptions>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Runs `close` after the current test. */
export const afterThis = (close: () => Promise<void>) => void closers.push(close);

export async function world(options: WorldOptions = {}): Promise<World> {
  const slack = options.slack ?? (await startFakeSlack());
  if (!options.slack) afterThis(() => slack.close());
  const notifierErrors: World['notifierErrors'] = [];
  const routeErrors: World['routeErrors'] = [];
  const waits: number[] = [];
  const { agent, executed } = fileAgent({
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.connector ? { connector: options.connector } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}),
  });
  const store = options.store ?? createMemoryStore();
  const runtime = createRuntime({
    agents: [agent],
    store,
    links: { secret: LINK_SECRET },
  });
  const notifier = createSlackNotifier({
    runtime: options.wrap?.(runtime) ?? runtime,
    ...(options.bot
      ? { token: BOT_TOKEN, channel: 'C0DEFAULT', apiUrl: slack.apiUrl }
      : { webhookUrl: slack.webhookUrl }),
    sleep: async (ms) => void waits.push(ms),
    onError: (error, context) => notifierErrors.push({ error, operation: context.operation }),
    ...options.notifier,
  });
  runtime.subscribe((event) => void notifier.publish([event]));
  afterThis(() => notifier.flush());
  const route = createSlackActions({
    runtime,
    signingSecret: SIGNING_SECRET,
    responseUrlOrigins: [slack.origin],
    clock: () => NOW_MS,
    ...(options.bot ? { token: BOT_TOKEN, apiUrl: slack.apiUrl } : {}),
    onError: (error, context) => routeErrors.push({ error, operation: context.operation }),
    ...options.actions,
  });
  return { runtime, store, slack, notifier, route, executed, notifierErrors, routeErrors, waits };
}

/** Starts a run that pauses on delete_file and returns the card the notifier posted for it (lines about earlier runs skipped). */
export async function paused(w: World, path = '/tmp/x', origin?: RunOrigin) {
  const before = w.slack.messages().length;
  const run = await w.runtime.start('files', { input: path, ...(origin ? { origin } : {}) });
  expect(run.status).toBe('awaitingApproval');
  await w.notifier.flush();
  const card: SlackRequest | undefined = w.slack
    .messages()
    .slice(before)
    .find((message) => Array.isArray(message.json['blocks']));
  if (!card)
    throw new Error(`no Slack card; notifier errors: ${w.notifierErrors.map((item) => String(item.error)).join('; ')}`);
  return { runId: run.runId, approvalId: run.pendingApprovals[0]!.approvalId, card };
}

/** Posts a signed interaction to the route and waits for its background work. */
export const send = (w: World, payload: unknown, options: Parameters<typeof signedRequest>[2] = {}) =>
  interact(w.route, signedRequest(`${w.slack.origin}/slack/actions`, payload, options));

/** The run as stored, to show that a refused request changed nothing. */
export const state = async (w: World, runId: string) => JSON.stringify(await w.store.load(runId));

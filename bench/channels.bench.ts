// The channel kit's own cost per approval card: the per-run queue, the OnceStore claim that makes a card be asked
// once, minting the three tokens and remembering the card's reference; with the claims in memory and in Redis, a
// driver that does nothing and one that POSTs to a service on loopback (sendJson), and a redelivered event.
// Run: npx tsx bench/channels.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createMemoryStore, createRuntime, defineTool, type LinkedRuntime, type RunEvent } from 'countersign';
import { channelSettings, createChannelNotifier, type ChannelDriver } from 'countersign/channels';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { sendJson } from '../src/kit/delivery/send-json.js';
import { testAgent } from '../test/support/test-kit.js';
import { formatDuration, percentile, printTable } from './support/measure.js';

const CARDS = 2000;
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const agent = testAgent({
  name: 'bench-ops',
  tools: [
    defineTool({
      name: 'deploy',
      description: 'Deploy',
      input: z.object({ target: z.string() }),
      needsApproval: true,
      execute: async () => 'ok',
    }),
  ],
  model: createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('deploy', { target: 'api' }),
  ),
});

/** `count` approval-requested events of distinct runs, shaped like the real one. */
async function events(runtime: LinkedRuntime, count: number): Promise<RunEvent[]> {
  const run = await runtime.start(agent.name, { input: 'deploy' });
  const request = run.pendingApprovals[0]!;
  return Array.from(
    { length: count },
    () => ({ type: 'approval-requested', runId: `run_${randomUUID()}`, agentName: agent.name, request }) as const,
  );
}

/** Per-card times (ms) of publishing `cards` one by one and waiting for each to be posted. */
async function perCard(
  runtime: LinkedRuntime,
  driver: ChannelDriver<{ id: string }>,
  cards: readonly RunEvent[],
): Promise<number[]> {
  const notifier = createChannelNotifier(driver, channelSettings({ runtime }));
  const times: number[] = [];
  for (const event of cards) {
    const started = performance.now();
    await notifier.publish([event]);
    await notifier.flush();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const service = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"ts":"1"}'));
});
await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}/post`;

let posted = 0;
const nothing: ChannelDriver<{ id: string }> = {
  name: 'bench',
  post: async () => ({ id: String(posted++) }),
  update: async () => {},
};
const overHttp: ChannelDriver<{ id: string }> = {
  name: 'bench-http',
  post: async (card) => {
    await sendJson(fetch, serviceUrl, {
      body: { text: card.request.description, buttons: [card.tokens.approve, card.tokens.deny] },
      timeoutMs: 10_000,
      service: 'bench',
    });
    return { id: String(posted++) };
  },
  update: async () => {},
};

const redis = new Redis(redisUrl);
const prefix = `cs-bench-channels:${randomUUID().slice(0, 8)}:`;
const runtimes: [string, LinkedRuntime][] = [
  [
    'memory',
    createRuntime({
      agents: [agent],
      store: createMemoryStore(),
      links: { secret: 'bench-link-secret-0123456789abcdef' },
    }),
  ],
  [
    'redis',
    createRuntime({
      agents: [agent],
      store: createRedisStore({ redis, prefix }),
      links: { secret: 'bench-link-secret-0123456789abcdef' },
    }),
  ],
];
const rows: string[][] = [];
for (const [name, runtime] of runtimes) {
  for (const [label, driver] of [
    ['driver does nothing', nothing],
    ['POST to a loopback service', overHttp],
  ] as const) {
    const cards = await events(runtime, CARDS);
    await perCard(runtime, driver, cards.slice(0, 200)); // warm-up on other runs
    const times = await perCard(runtime, driver, cards.slice(200));
    rows.push([
      name,
      label,
      'new approval',
      formatDuration(percentile(times, 0.5)),
      formatDuration(percentile(times, 0.99)),
    ]);
    // The same events again (another instance, a stream's redelivery): the claim says it was asked.
    const again = await perCard(runtime, driver, cards.slice(200));
    rows.push([
      name,
      label,
      'redelivered event',
      formatDuration(percentile(again, 0.5)),
      formatDuration(percentile(again, 0.99)),
    ]);
  }
}
printTable(
  `One approval card through the channel kit (${CARDS - 200} cards each, one at a time)`,
  ['OnceStore', 'driver', 'event', 'median', 'p99'],
  rows,
);

let cursor = '0';
do {
  const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
  if (keys.length > 0) await redis.del(...keys);
  cursor = next;
} while (cursor !== '0');
redis.disconnect();
service.close();

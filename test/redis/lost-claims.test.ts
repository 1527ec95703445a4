// Every caller of the once store whose claim matters, with the claim's reply lost after Redis ran it: ioredis
// resends the command on a new connection, the resend finds the caller's own claim, and that must count as the
// caller's claim (the store compares the value), never as another delivery's.
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createMemoryStore, createRuntime, type OnceStore } from 'countersign';
import { channelSettings, createChannelNotifier, type ChannelDriver } from 'countersign/channels';
import { createRedisOnceStore, createRedisResumeQueue, createRedisStore } from 'countersign/redis';
import { cards, clickUpdate, paused, telegramWorlds } from '../adapters/telegram/telegram-world.js';
import { TELEGRAM_BOT_TOKEN } from '../support/fake-telegram.js';
import { countingAgent } from '../support/runtime-harness.js';
import { harness, signed } from '../http/harness.js';
import { uniquePrefix } from './redis-harness.js';
import { proxiedRedis } from './proxied-redis.js';

const url = inject('redisUrl');
const post = (body: string, headers: Record<string, string>) => ({ method: 'POST', headers, body });
const decisionPath = (runId: string, approvalId: string) => `/runs/${runId}/approvals/${approvalId}`;

describe.skipIf(!url)('once-store claims whose reply was lost are the caller’s own', () => {
  const prefix = uniquePrefix();
  const redis = proxiedRedis(url!, prefix);
  const { world } = telegramWorlds();

  /** The once store on the proxied connection, its script loaded, so the lost reply is the claim's own (not NOSCRIPT's). */
  const warmOnce = async (): Promise<OnceStore> => {
    const once = createRedisOnceStore({ redis: redis.viaProxy, prefix });
    await once.putIfAbsent(`warm:${randomUUID()}`, randomUUID(), 1000);
    return once;
  };

  it('a signed decision whose webhook-id claim reply was lost is recorded and answered, not 409 webhook_in_progress', async () => {
    await warmOnce();
    const h = harness({ store: createRedisStore({ redis: redis.viaProxy, prefix }) });
    const run = await h.runtime.start('files', { input: '/tmp/claimed' });
    const { runId } = run;
    const { approvalId } = run.pendingApprovals[0]!;
    const body = JSON.stringify({ runId, approvalId, approved: true, approvedBy: 'alice' });
    const headers = signed(body);
    const lost = redis.proxy.dropReplyTo(headers['webhook-id']!);
    const res = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    await lost;
    const answer = await res.text();
    expect(res.status, answer).toBe(200);
    expect(JSON.parse(answer)).toMatchObject({ status: 'completed', duplicate: false });
    expect(h.executed).toEqual(['/tmp/claimed']);
    // The claim was settled with that answer: a redelivery replays it.
    const again = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    expect(again.status).toBe(200);
    expect(again.headers.get('webhook-replayed')).toBe('true');
    expect(await again.text()).toBe(answer);
  });

  it('a signed decision claimed in its own commit, whose reply was lost, is answered as itself and settled', async () => {
    await warmOnce();
    const store = createRedisStore({ redis: redis.viaProxy, prefix });
    const queue = createRedisResumeQueue({ redis: redis.viaProxy, prefix });
    const h = harness({ store, queue, app: { resumeMode: 'enqueue' } });
    const run = await h.runtime.start('files', { input: '/tmp/in-commit' });
    const { runId } = run;
    const { approvalId } = run.pendingApprovals[0]!;
    const approvedBy = `alice-${randomUUID()}`;
    const body = JSON.stringify({ runId, approvalId, approved: true, approvedBy });
    const headers = signed(body);
    // approvedBy is first sent in the commit that records the decision, claims the webhook-id and queues the run.
    const lost = redis.proxy.dropReplyTo(approvedBy);
    const res = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    await lost;
    const answer = await res.text();
    expect(res.status, answer).toBe(202);
    expect(res.headers.get('webhook-replayed')).toBeNull();
    const jobs = await redis.direct.xrange(queue.key, '-', '+');
    expect(jobs.filter(([, fields]) => fields.includes(runId))).toHaveLength(1);
    const again = await h.app.request(decisionPath(runId, approvalId), post(body, headers));
    expect(again.status).toBe(202);
    expect(again.headers.get('webhook-replayed')).toBe('true');
    expect(await again.text()).toBe(answer);
  });

  describe('a channel notifier', () => {
    const setup = async () => {
      const once = await warmOnce();
      const counting = countingAgent();
      const runtime = createRuntime({
        agents: [counting.agent],
        store: createMemoryStore(),
        once,
        links: { secret: 'lost-claims-secret-0123456789abcdef' },
      });
      const name = `pager${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const posted: string[] = [];
      const edits: string[] = [];
      const driver: ChannelDriver<{ id: string }> = {
        name,
        async post(card) {
          posted.push(card.nudge === undefined ? 'card' : card.nudge.kind);
          return { id: `p${posted.length}` };
        },
        async update({ outcome }) {
          edits.push(outcome.kind);
        },
      };
      const notifier = createChannelNotifier(driver, channelSettings({ runtime }));
      runtime.subscribe((event) => void notifier.publish([event]));
      return { runtime, counting, name, posted, edits, notifier };
    };

    it('posts the approval card whose claim reply was lost', async () => {
      const { runtime, counting, name, posted, notifier } = await setup();
      const lost = redis.proxy.dropReplyTo(`${name}:card:`);
      await runtime.start(counting.agent.name, { input: 'pay' });
      await lost;
      await notifier.flush();
      expect(posted).toEqual(['card']);
    });

    it('posts the reminder card whose claim reply was lost, and shows the decision whose marker reply was lost', async () => {
      const { runtime, counting, name, posted, edits, notifier } = await setup();
      const run = await runtime.start(counting.agent.name, { input: 'pay' });
      await notifier.flush();
      const request = run.pendingApprovals[0]!;
      const nudged = redis.proxy.dropReplyTo(`${name}:nudge:`);
      await notifier.publish([
        { type: 'approval-reminder', runId: run.runId, agentName: run.agentName, request, reminder: 1 },
      ]);
      await nudged;
      await notifier.flush();
      expect(posted).toEqual(['card', 'reminder']);

      const shown = redis.proxy.dropReplyTo(`${name}:shown:`);
      await runtime.respond(run.runId, { approvalId: request.approvalId, approved: true, approvedBy: 'alice' });
      await shown;
      await notifier.flush();
      expect(edits).toEqual(['decided', 'finished']);
    });
  });

  it('a Telegram click whose update claim reply was lost decides', async () => {
    const w = await world({ once: await warmOnce() });
    const { runId, card } = await paused(w, '/tmp/telegram');
    const update = clickUpdate(card, card.approve, 4242);
    const lost = redis.proxy.dropReplyTo(`telegram:update:${TELEGRAM_BOT_TOKEN.split(':')[0]}:${update.update_id}`);
    expect((await w.deliver(update)).status).toBe(200);
    await lost;
    expect(w.updateErrors).toEqual([]);
    expect((await w.runtime.get(runId)).status).toBe('completed');
    expect(w.executed).toHaveLength(1);
    expect(cards(w.telegram)).toHaveLength(1);
  });

  it('a link whose decision was recorded but not spent is spent by its next use even when the spend reply is lost', async () => {
    const once = await warmOnce();
    const counting = countingAgent();
    const runtime = createRuntime({
      agents: [counting.agent],
      store: createMemoryStore(),
      once,
      links: { secret: 'lost-claims-secret-0123456789abcdef' },
    });
    const run = await runtime.start(counting.agent.name, { input: 'pay' });
    const { approvalId } = run.pendingApprovals[0]!;
    const tokens = await runtime.linkTokens(run.runId, approvalId);
    // The first use recorded its decision and died before spending the link.
    await runtime.respond(run.runId, { approvalId, approved: true, approvedBy: 'link:approve' }, { mode: 'record' });
    const lost = redis.proxy.dropReplyTo('link:');
    const result = await runtime.respondWithLink(tokens.approve!, { mode: 'record' });
    await lost;
    expect(result).toMatchObject({ runId: run.runId, approvalId, duplicate: true });
    // Spent now: a further use that decides nothing is refused.
    await expect(runtime.respondWithLink(tokens.approve!, { mode: 'record' })).rejects.toMatchObject({
      code: 'invalid_link_token',
    });
  });
});

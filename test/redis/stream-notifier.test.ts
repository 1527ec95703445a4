import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createRuntime, type RunEvent } from 'countersign';
import { createApprovalApp, type EventFeed } from 'countersign/http';
import { createStreamNotifier, type StreamErrorInfo, type StreamNotifier } from 'countersign/redis';
import { createWebhookNotifier } from 'countersign/webhooks';
import { countingAgent } from '../support/runtime-harness.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { deferred, observed, removePrefix, until } from './redis-harness.js';

const url = inject('redisUrl');

function completed(runId: string): RunEvent {
  return { type: 'run-completed', runId, agentName: 'files', output: `done ${runId}` };
}

describe.skipIf(!url)('createStreamNotifier on real Redis', () => {
  const connections: Redis[] = [];
  const notifiers: StreamNotifier[] = [];
  const prefixes: string[] = [];

  /** A fresh connection and a unique key prefix; both cleaned up after the test. */
  function setup() {
    const prefix = `cs-test:${randomUUID()}:`;
    prefixes.push(prefix);
    const connect = () => {
      const redis = new Redis(url!);
      connections.push(redis);
      return redis;
    };
    const redis = connect();
    const add = (event: RunEvent) =>
      redis.xadd(`${prefix}events`, '*', 'type', event.type, 'runId', event.runId, 'event', JSON.stringify(event));
    const errors: StreamErrorInfo[] = [];
    const notifier = (options: {
      group: string;
      consumer?: string;
      redis?: Redis;
      claimIdleMs?: number;
      maxDeliveries?: number;
      from?: 'latest' | 'earliest';
    }) => {
      const created = createStreamNotifier({
        redis: options.redis ?? connect(),
        prefix,
        blockMs: 50,
        // Far above any handling time, however busy the machine: no event is claimed from a live consumer that is
        // merely slow. The tests of claiming set their own.
        claimIdleMs: 60_000,
        onError: (info) => errors.push(info),
        ...options,
      });
      notifiers.push(created);
      return created;
    };
    const pending = async (group: string) =>
      ((await redis.xpending(`${prefix}events`, group)) as [number, ...unknown[]])[0];
    return { prefix, redis, connect, add, notifier, errors, pending };
  }

  afterEach(async () => {
    await Promise.allSettled(notifiers.splice(0).map((notifier) => notifier.close()));
    for (const prefix of prefixes.splice(0)) await removePrefix(connections[0]!, prefix);
    for (const redis of connections.splice(0)) redis.disconnect();
  });

  it('hands every event to exactly one consumer of a group, in stream order per consumer, and acks it', async () => {
    const { add, notifier, errors, pending } = setup();
    const a = notifier({ group: 'slack', consumer: 'a' });
    const b = notifier({ group: 'slack', consumer: 'b' });
    await a.createGroup();
    const seen: { consumer: string; runId: string; id: string; deliveries: number }[] = [];
    const controller = new AbortController();
    const done = Promise.all(
      [a, b].map((n) =>
        n.consume(async (event, meta) => void seen.push({ consumer: n.consumer, runId: event.runId, ...meta }), {
          signal: controller.signal,
        }),
      ),
    );
    const runIds = Array.from({ length: 60 }, (_, index) => `run_${index}`);
    for (const runId of runIds) await add(completed(runId));
    await until(() => seen.length >= runIds.length, 'every event is handled');
    await until(async () => (await pending('slack')) === 0, 'every event is acked');
    controller.abort();
    await done;

    expect(seen.map((s) => s.runId).sort()).toEqual([...runIds].sort());
    expect(new Set(seen.map((s) => s.id)).size).toBe(runIds.length);
    expect(seen.every((s) => s.deliveries === 1)).toBe(true);
    for (const consumer of ['a', 'b']) {
      const mine = seen.filter((s) => s.consumer === consumer).map((s) => Number(s.runId.slice(4)));
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
    expect(errors).toEqual([]);
  });

  it('gives every group its own copy of every event', async () => {
    const { add, notifier, errors } = setup();
    const slack = notifier({ group: 'slack' });
    const audit = notifier({ group: 'audit' });
    await Promise.all([slack.createGroup(), audit.createGroup()]);
    const seen = { slack: [] as string[], audit: [] as string[] };
    const controller = new AbortController();
    const done = Promise.all([
      slack.consume((event) => void seen.slack.push(event.runId), { signal: controller.signal }),
      audit.consume((event) => void seen.audit.push(event.runId), { signal: controller.signal }),
    ]);
    const runIds = Array.from({ length: 20 }, (_, index) => `run_${index}`);
    for (const runId of runIds) await add(completed(runId));
    await until(() => seen.slack.length >= 20 && seen.audit.length >= 20, 'both groups saw every event');
    controller.abort();
    await done;
    expect(seen.slack).toEqual(runIds);
    expect(seen.audit).toEqual(runIds);
    expect(errors).toEqual([]);
  });

  it("redelivers a dead consumer's unacked events to another consumer (at-least-once)", async () => {
    const { prefix, redis, add, notifier, errors, pending } = setup();
    const survivor = notifier({ group: 'slack', consumer: 'survivor', claimIdleMs: 150 });
    await survivor.createGroup();
    for (const runId of ['run_1', 'run_2', 'run_3']) await add(completed(runId));
    // A consumer that reads and dies before acking.
    const read = await redis.xreadgroup('GROUP', 'slack', 'dead', 'COUNT', 10, 'STREAMS', `${prefix}events`, '>');
    expect(read).not.toBeNull();
    expect(await pending('slack')).toBe(3);

    const seen: { runId: string; deliveries: number }[] = [];
    const controller = new AbortController();
    const done = survivor.consume(
      (event, meta) => void seen.push({ runId: event.runId, deliveries: meta.deliveries }),
      { signal: controller.signal },
    );
    await add(completed('run_4'));
    await until(() => seen.length >= 4, "the survivor handled the dead consumer's events and the new one");
    await until(async () => (await pending('slack')) === 0, 'everything is acked');
    controller.abort();
    await done;
    expect(seen.map((s) => s.runId).sort()).toEqual(['run_1', 'run_2', 'run_3', 'run_4']);
    expect(seen.find((s) => s.runId === 'run_4')?.deliveries).toBe(1);
    expect(seen.filter((s) => s.runId !== 'run_4').every((s) => s.deliveries === 2)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('leaves the event of a failing handler pending and delivers it again until the handler succeeds', async () => {
    const { add, notifier, errors, pending } = setup();
    const n = notifier({ group: 'slack', claimIdleMs: 150 });
    await n.createGroup();
    const attempts: number[] = [];
    const controller = new AbortController();
    const done = n.consume(
      async (_event, meta) => {
        attempts.push(meta.deliveries);
        if (meta.deliveries < 3) throw new Error('slack is down');
      },
      { signal: controller.signal },
    );
    await add(completed('run_1'));
    await until(() => attempts.length >= 3, 'the event was tried three times');
    await until(async () => (await pending('slack')) === 0, 'the event is acked after success');
    controller.abort();
    await done;
    expect(attempts).toEqual([1, 2, 3]);
    expect(errors.map((e) => [e.phase, (e.error as Error).message, e.deliveries])).toEqual([
      ['handler', 'slack is down', 1],
      ['handler', 'slack is down', 2],
    ]);
  });

  it('keeps an event a live consumer is still handling from being claimed by another', async () => {
    const { add, connect, notifier, errors, pending } = setup();
    // The heartbeat keeps the entry fresh every claimIdleMs / 3; a second is far above how late it runs when busy.
    const claimIdleMs = 1_000;
    const slow = notifier({ group: 'slack', consumer: 'slow', claimIdleMs });
    const watched = observed(connect());
    const other = notifier({ group: 'slack', consumer: 'other', claimIdleMs, redis: watched.redis });
    await slow.createGroup();
    const release = deferred();
    const started = deferred();
    const seenByOther: string[] = [];
    const controller = new AbortController();
    const slowDone = slow.consume(
      async () => {
        started.resolve();
        await release.promise;
      },
      { signal: controller.signal },
    );
    await add(completed('run_slow'));
    await started.promise;
    const otherDone = other.consume((event) => void seenByOther.push(event.runId), { signal: controller.signal });
    // Several claim intervals pass while the handler runs: the other consumer tries to claim idle entries (every
    // claimIdleMs / 2) five times, the last ones well after the entry would have been idle for claimIdleMs.
    const claims = () => watched.commands.filter((command) => command === 'XAUTOCLAIM').length;
    await until(() => claims() >= 5, 'the other consumer tried to claim five times', 30_000);
    const claimedMeanwhile = [...seenByOther];
    release.resolve();
    expect(claimedMeanwhile).toEqual([]);
    await until(async () => (await pending('slack')) === 0, 'the slow handler acked');
    controller.abort();
    await Promise.all([slowDone, otherDone]);
    expect(seenByOther).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('acks and reports malformed entries without stopping', async () => {
    const { prefix, redis, add, notifier, errors, pending } = setup();
    const n = notifier({ group: 'slack' });
    await n.createGroup();
    const key = `${prefix}events`;
    await redis.xadd(key, '*', 'type', 'run-completed', 'runId', 'run_x');
    await redis.xadd(key, '*', 'type', 'run-completed', 'runId', 'run_x', 'event', '{not json');
    await redis.xadd(
      key,
      '*',
      'type',
      'run-exploded',
      'runId',
      'run_x',
      'event',
      JSON.stringify({ type: 'run-exploded', runId: 'run_x' }),
    );
    await redis.xadd(key, '*', 'type', 'run-completed', 'runId', 'run_y', 'event', JSON.stringify(completed('run_x')));
    await add(completed('run_ok'));
    const seen: string[] = [];
    const controller = new AbortController();
    const done = n.consume((event) => void seen.push(event.runId), { signal: controller.signal });
    await until(() => seen.length >= 1 && errors.length >= 4, 'the good event arrived and the bad ones were reported');
    await until(async () => (await pending('slack')) === 0, 'every entry is acked');
    controller.abort();
    await done;
    expect(seen).toEqual(['run_ok']);
    expect(errors.map((e) => e.phase)).toEqual(['malformed', 'malformed', 'malformed', 'malformed']);
    expect((errors[0]!.error as Error).message).toMatch(/no `event` field/);
    expect((errors[1]!.error as Error).message).toMatch(/not JSON/);
    expect((errors[2]!.error as Error).message).toMatch(/Unknown event type "run-exploded"/);
    expect((errors[3]!.error as Error).message).toMatch(/does not match/);
  });

  it('moves an event that keeps failing to the dead-letter stream after maxDeliveries', async () => {
    const { prefix, redis, add, notifier, errors, pending } = setup();
    const n = notifier({ group: 'slack', claimIdleMs: 50, maxDeliveries: 2 });
    await n.createGroup();
    let attempts = 0;
    const controller = new AbortController();
    const done = n.consume(
      async () => {
        attempts++;
        throw new Error('always fails');
      },
      { signal: controller.signal },
    );
    await add(completed('run_poison'));
    await until(() => errors.some((e) => e.phase === 'dead-letter'), 'the event is dead-lettered');
    await until(async () => (await pending('slack')) === 0, 'the event is acked');
    controller.abort();
    await done;
    expect(attempts).toBe(2);
    const dead = await redis.xrange(`${prefix}events:dead`, '-', '+');
    expect(dead).toHaveLength(1);
    const fields = dead[0]![1];
    expect(fields[fields.indexOf('runId') + 1]).toBe('run_poison');
    expect(fields[fields.indexOf('deadGroup') + 1]).toBe('slack');
  });

  it('lets the handlers in flight finish and acks them when consume is stopped', async () => {
    const { add, connect, notifier, pending, errors } = setup();
    const watched = observed(connect());
    const n = notifier({ group: 'slack', redis: watched.redis });
    await n.createGroup();
    const release = deferred();
    const started = deferred();
    const order: string[] = [];
    const controller = new AbortController();
    const done = n.consume(
      async () => {
        started.resolve();
        await release.promise;
        order.push('handler finished');
      },
      { signal: controller.signal },
    );
    await add(completed('run_1'));
    await started.promise;
    controller.abort();
    let stopped = false;
    void done.then(() => {
      stopped = true;
      order.push('consume stopped');
    });
    // The reader has seen the abort once it closed its blocking connection.
    await until(
      () => watched.duplicates.length > 0 && watched.duplicates.every((connection) => connection.status === 'end'),
      'the reader stopped reading',
    );
    expect(stopped).toBe(false);
    release.resolve();
    await done;
    expect(order).toEqual(['handler finished', 'consume stopped']);
    expect(await pending('slack')).toBe(0);
    expect(errors).toEqual([]);
  });

  it('refuses a second consume on the same notifier, use after close, and creating a group on a key that is not a stream', async () => {
    const { prefix, redis, notifier } = setup();
    const n = notifier({ group: 'slack' });
    await n.createGroup();
    const controller = new AbortController();
    const first = n.consume(() => undefined, { signal: controller.signal });
    await expect(n.consume(() => undefined)).rejects.toThrow(/already consuming/);
    controller.abort();
    await first;
    await n.close();
    await expect(n.consume(() => undefined)).rejects.toThrow(/closed/);
    expect(() => n.subscribe(() => undefined)).toThrow(/closed/);

    await redis.set(`${prefix}events`, 'not a stream');
    await expect(notifier({ group: 'other' }).createGroup()).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/must be a Redis Stream/),
    });
    expect(() => createStreamNotifier({ redis, group: '' })).toThrow(/group/);
    expect(() => createStreamNotifier({ redis, group: 'g', claimIdleMs: 0 })).toThrow(/claimIdleMs/);
  });

  it('starts a new group at the latest event by default, or at the earliest with from: earliest', async () => {
    const { add, notifier } = setup();
    await add(completed('run_old'));
    const latest = notifier({ group: 'latest' });
    const earliest = notifier({ group: 'earliest', from: 'earliest' });
    await Promise.all([latest.createGroup(), earliest.createGroup()]);
    await add(completed('run_new'));
    const seen = { latest: [] as string[], earliest: [] as string[] };
    const controller = new AbortController();
    const done = Promise.all([
      latest.consume((event) => void seen.latest.push(event.runId), { signal: controller.signal }),
      earliest.consume((event) => void seen.earliest.push(event.runId), { signal: controller.signal }),
    ]);
    await until(() => seen.latest.length >= 1 && seen.earliest.length >= 2, 'both groups caught up');
    controller.abort();
    await done;
    expect(seen).toEqual({ latest: ['run_new'], earliest: ['run_old', 'run_new'] });
  });

  it('drives a channel notifier in one line: two instances consuming one group send each event once, and each group gets its own copy', async () => {
    const { add, notifier, errors, pending } = setup();
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const receivers = { webhooks: await startReceiver(), audit: await startReceiver() };
    const instances = [
      { group: 'webhooks', consumer: 'instance-a' },
      { group: 'webhooks', consumer: 'instance-b' },
      { group: 'audit', consumer: 'instance-a' },
    ] as const;
    const controller = new AbortController();
    const readers = instances.map(({ group, consumer }) => {
      const channel = createWebhookNotifier({ url: receivers[group].url, secret, events: ['run.completed'] });
      return { stream: notifier({ group, consumer }), channel };
    });
    await Promise.all(readers.map(({ stream }) => stream.createGroup()));
    const done = Promise.all(
      readers.map(({ stream, channel }) =>
        stream.consume((event) => channel.publish([event]).then(() => channel.flush()), { signal: controller.signal }),
      ),
    );
    const runIds = Array.from({ length: 30 }, (_, index) => `run_${index}`);
    for (const runId of runIds) await add(completed(runId));
    await until(
      () => receivers.webhooks.deliveries.length >= runIds.length && receivers.audit.deliveries.length >= runIds.length,
      'both groups delivered every event',
    );
    await until(
      async () => (await pending('webhooks')) === 0 && (await pending('audit')) === 0,
      'every event is acked',
    );
    controller.abort();
    await done;
    try {
      for (const receiver of Object.values(receivers)) {
        const runs = receiver.deliveries.map(
          (delivery) => (JSON.parse(delivery.body) as { data: { runId: string } }).data.runId,
        );
        expect(runs.sort()).toEqual([...runIds].sort());
        expect(new Set(receiver.deliveries.map((delivery) => delivery.headers['webhook-id'])).size).toBe(runIds.length);
      }
      expect(errors).toEqual([]);
    } finally {
      await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
    }
  });

  it('feeds live events to every subscriber, with the entry id, until it unsubscribes; nothing written after subscribe is missed', async () => {
    const { redis, prefix, add, notifier, errors } = setup();
    const old = completed('run_old');
    // Written a minute ago: before the feed, so never delivered.
    await redis.xadd(
      `${prefix}events`,
      `${Date.now() - 60_000}-0`,
      'type',
      old.type,
      'runId',
      old.runId,
      'event',
      JSON.stringify(old),
    );
    const n = notifier({ group: 'sse' });
    const first: { runId: string; id: string }[] = [];
    const second: string[] = [];
    const offFirst = n.subscribe((event, { id }) => void first.push({ runId: event.runId, id }));
    const offSecond = n.subscribe((event) => void second.push(event.runId));
    // Written at once, while the feed's connection may still be coming up.
    await add(completed('run_live'));
    await until(
      () => first.some((e) => e.runId === 'run_live') && second.includes('run_live'),
      'both subscribers saw run_live',
    );
    offSecond();
    await add(completed('run_after'));
    await until(() => first.some((e) => e.runId === 'run_after'), 'the first subscriber saw run_after');
    offFirst();
    expect(first.map((e) => e.runId)).toEqual(['run_live', 'run_after']);
    expect(second).toEqual(['run_live']);
    expect(first.every((e) => /^\d+-\d+$/.test(e.id))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('serves as the event feed of the approval app: GET /events streams what the Redis stream carries', async () => {
    const { add, notifier, errors } = setup();
    const n = notifier({ group: 'sse' });
    const feed: EventFeed = n;
    const token = 'stream-test-bearer-token-0123456789';
    const app = createApprovalApp(createRuntime({ agents: [countingAgent().agent] }), {
      bearerToken: token,
      events: feed,
    });
    const res = await app.request('/events', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const firstEvent = (async () => {
      while (!/^data: .*$/m.test(text)) {
        const { done, value } = await reader.read();
        if (done) throw new Error('the stream ended');
        text += decoder.decode(value, { stream: true });
      }
      return JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as RunEvent;
    })();
    let arrived = false;
    void firstEvent.then(
      () => (arrived = true),
      () => (arrived = true),
    );
    // Events written from another process (here: straight to the stream) reach the client once the feed is live.
    for (let probe = 0; !arrived && probe < 200; probe++) {
      await add(completed(`run_probe_${probe}`));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await firstEvent).toMatchObject({ type: 'run-completed', runId: expect.stringMatching(/^run_probe_/) });
    await reader.cancel();
    expect(errors).toEqual([]);
  });
});

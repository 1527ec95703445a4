// Model-based: random sequences of creates, commits and deletes applied to the
// memory store (the reference) and the Redis store must leave both answering
// every query the same way: load, listPending (every page, every agent),
// expiredRuns and runsToRecover.
import fc from 'fast-check';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createMemoryStore, VersionConflictError, type AgentSnapshot, type SnapshotStore } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { connect, pausedRun, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const NOW = Date.now();

type Operation =
  | { kind: 'create'; run: number }
  | { kind: 'wait'; run: number; expiresIn: number | undefined }
  | { kind: 'running'; run: number; leaseIn: number | undefined; updatedAgo: number }
  | { kind: 'finish'; run: number }
  | { kind: 'stale'; run: number }
  | { kind: 'delete'; run: number };

const RUNS = 5;
const run = fc.integer({ min: 0, max: RUNS - 1 });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), run }),
  fc.record({
    kind: fc.constant('wait' as const),
    run,
    expiresIn: fc.option(fc.integer({ min: -60_000, max: 60_000 }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('running' as const),
    run,
    leaseIn: fc.option(fc.integer({ min: -60_000, max: 60_000 }), { nil: undefined }),
    updatedAgo: fc.integer({ min: 0, max: 120_000 }),
  }),
  fc.record({ kind: fc.constant('finish' as const), run }),
  fc.record({ kind: fc.constant('stale' as const), run }),
  fc.record({ kind: fc.constant('delete' as const), run }),
);

/** What each store answers, in a form both must match exactly. */
async function observe(store: SnapshotStore, runIds: readonly string[], agents: readonly string[]) {
  const pages: string[][] = [];
  for (const agent of [undefined, ...agents]) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listPending({
        limit: 2,
        ...(agent === undefined ? {} : { agent }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      seen.push(...page.items.map((item) => `${item.runId}/${item.request.approvalId}/${item.request.expiresAt}`));
      cursor = page.cursor;
    } while (cursor !== undefined);
    pages.push(seen);
  }
  return {
    loaded: await Promise.all(runIds.map((runId) => store.load(runId))),
    pages,
    expired: [...(await store.expiredRuns(NOW, 1000))].sort(),
    recover: [...(await store.runsToRecover(NOW, NOW - 60_000, 1000))].sort(),
  };
}

describe.skipIf(!url)('Redis store against the memory store (model-based)', () => {
  const redis = url ? connect(url) : undefined!;
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('answers every query as the memory store does after any sequence of operations', async () => {
    const templates: AgentSnapshot[] = [];
    for (let index = 0; index < RUNS; index++) {
      templates.push(
        (
          await pausedRun({
            ttlMs: 30_000 * (index + 1),
            clock: () => NOW - 45_000,
            agentName: `model-agent-${index % 2}`,
          })
        ).run,
      );
    }
    const agents = ['model-agent-0', 'model-agent-1'];
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        const prefix = uniquePrefix();
        prefixes.push(prefix);
        const memory = createMemoryStore();
        const redisStore = createRedisStore({ redis, prefix });
        // Fresh run ids per sequence, so sequences do not see each other's runs.
        const suffix = prefix.slice(8, 16);
        const base = templates.map((template) => ({ ...template, runId: `${template.runId}-${suffix}` }));
        const runIds = base.map((item) => item.runId);
        for (const op of operations) {
          const current = await memory.load(runIds[op.run]!);
          const template = base[op.run]!;
          const { stopReason: _stopReason, ...rest } = current ?? template;
          let next: AgentSnapshot | undefined;
          switch (op.kind) {
            case 'create':
              next = template;
              break;
            case 'wait': {
              const { expiresAt: _expiresAt, ...request } = template.pendingApprovals[0]!;
              next = {
                ...rest,
                status: 'awaitingApproval',
                state: 'awaitingApproval',
                stopReason: 'awaiting_approval',
                pendingApprovals: [
                  op.expiresIn === undefined ? request : { ...request, expiresAt: NOW + op.expiresIn },
                ],
                toolCalls: template.toolCalls,
              };
              break;
            }
            case 'running':
              next = {
                ...rest,
                status: 'running',
                state: 'executingTools',
                pendingApprovals: [],
                toolCalls:
                  op.leaseIn === undefined
                    ? []
                    : [
                        {
                          ...template.toolCalls[0]!,
                          status: 'executing',
                          lease: { owner: 'w', until: NOW + op.leaseIn },
                          attempts: 1,
                        },
                      ],
                updatedAt: NOW - op.updatedAgo,
              };
              break;
            case 'finish':
              next = {
                ...rest,
                status: 'completed',
                state: 'completed',
                stopReason: 'completed',
                pendingApprovals: [],
                toolCalls: [],
                output: 'ok',
              };
              break;
            case 'stale':
              // A commit from a snapshot one version behind: refused by both.
              if (current) {
                const behind = { ...current, version: current.version };
                const outcomes = await Promise.allSettled([
                  memory.commit({ ...behind, version: current.version + 1 }, current.version - 1),
                  redisStore.commit({ ...behind, version: current.version + 1 }, current.version - 1),
                ]);
                for (const outcome of outcomes)
                  expect(outcome.status === 'rejected' && outcome.reason instanceof VersionConflictError).toBe(true);
              }
              continue;
            case 'delete':
              await memory.delete(runIds[op.run]!);
              await redisStore.delete(runIds[op.run]!);
              continue;
          }
          const apply = (store: SnapshotStore) =>
            op.kind === 'create'
              ? store.create(next!)
              : store.commit({ ...next!, version: (current?.version ?? 0) + 1 }, current?.version ?? 0);
          const [inMemory, inRedis] = await Promise.allSettled([apply(memory), apply(redisStore)]);
          expect(inRedis.status).toBe(inMemory.status);
          if (inMemory.status === 'rejected')
            expect((inRedis as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
        }
        expect(await observe(redisStore, runIds, agents)).toEqual(await observe(memory, runIds, agents));
      }),
      { numRuns: 40 },
    );
  });
});

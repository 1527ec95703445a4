// The SnapshotStore contract, run against every store (memory, Redis).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  approveAll,
  createAgent,
  defineTool,
  VersionConflictError,
  type AgentSnapshot,
  type RunEvent,
  type SnapshotStore,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export interface StoreHarness {
  store: SnapshotStore;
  /** Events the store published, in order (through whatever channel it uses). */
  published?: () => Promise<readonly RunEvent[]>;
  close?: () => Promise<void>;
}

const clockNow = 1_700_000_000_000;
const clock = () => clockNow;

function pausedAgent(ttlMs?: number) {
  const agentName = `contract-${randomUUID().slice(0, 8)}`;
  const tool = defineTool({
    name: 'send_email',
    description: 'Send an email',
    input: z.object({ to: z.string() }),
    execute: ({ to }) => `sent to ${to}`,
    ...(ttlMs === undefined ? {} : { approvalTtlMs: ttlMs }),
  });
  const agent = createAgent({
    name: agentName,
    clock,
    tools: [tool],
    model: createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('done')
        : toolCallTurn('send_email', { to: `${randomUUID()}@example.com` }),
    ),
  });
  return agent;
}

const agentsByRun = new Map<string, ReturnType<typeof pausedAgent>>();

/** A run paused on one `send_email` approval, from a fresh agent. */
export async function pausedRun(ttlMs?: number, sessionId?: string): Promise<AgentSnapshot> {
  const agent = pausedAgent(ttlMs);
  const run = await agent.execute({ input: 'email someone', ...(sessionId === undefined ? {} : { sessionId }) });
  agentsByRun.set(run.runId, agent);
  return run;
}

function createAgentFor(run: AgentSnapshot) {
  return agentsByRun.get(run.runId)!;
}

export function describeStoreContract(
  name: string,
  makeHarness: () => Promise<StoreHarness>,
  hasPublished = true,
): void {
  describe(`${name}: SnapshotStore contract`, () => {
    const withStore = async (body: (harness: StoreHarness) => Promise<void>) => {
      const harness = await makeHarness();
      try {
        await body(harness);
      } finally {
        await harness.close?.();
      }
    };

    it('creates and loads a run unchanged', () =>
      withStore(async ({ store }) => {
        const run = await pausedRun();
        await store.create(run);
        expect(await store.load(run.runId)).toEqual(run);
        expect(await store.load(`missing-${randomUUID()}`)).toBeUndefined();
      }));

    it('refuses to create a run id twice', () =>
      withStore(async ({ store }) => {
        const run = await pausedRun();
        await store.create(run);
        await expect(store.create(run)).rejects.toBeInstanceOf(VersionConflictError);
      }));

    it('commits only at the expected version and keeps the history appended', () =>
      withStore(async ({ store }) => {
        const run = await pausedRun();
        await store.create(run);
        const decided = approveAll(run, 'alice', { agent: createAgentFor(run) });
        const done = await createAgentFor(run).execute(decided);
        await store.commit(done, run.version);
        const loaded = await store.load(run.runId);
        expect(loaded).toEqual(done);
        expect(loaded!.messages.length).toBeGreaterThan(run.messages.length);
        const stale = store.commit(decided, run.version);
        await expect(stale).rejects.toMatchObject({
          name: 'VersionConflictError',
          expected: run.version,
          actual: done.version,
        });
        expect(await store.load(run.runId)).toEqual(done);
      }));

    it('lists pending approvals soonest expiry first, paginated, filtered by agent', () =>
      withStore(async ({ store }) => {
        const runs = [await pausedRun(3_000), await pausedRun(1_000), await pausedRun(2_000), await pausedRun()];
        for (const run of runs) await store.create(run);
        const mine = new Set(runs.map((run) => run.runId));
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.listPending({ limit: 2, ...(cursor === undefined ? {} : { cursor }) });
          expect(page.items.length).toBeLessThanOrEqual(2);
          seen.push(...page.items.filter((item) => mine.has(item.runId)).map((item) => item.runId));
          cursor = page.cursor;
        } while (cursor !== undefined);
        expect(seen).toEqual([runs[1]!.runId, runs[2]!.runId, runs[0]!.runId, runs[3]!.runId]);
        const filtered = await store.listPending({ agent: runs[0]!.agentName });
        expect(filtered.items.map((item) => item.runId)).toEqual([runs[0]!.runId]);
        expect(filtered.items[0]!.request).toEqual(runs[0]!.pendingApprovals[0]);
      }));

    it("lists one session's pending approvals, alone or with an agent, and keeps a run's session through a commit", () =>
      withStore(async ({ store }) => {
        const [session, other] = [`chat-${randomUUID()}`, `chat-${randomUUID()}`];
        const runs = [
          await pausedRun(2_000, session),
          await pausedRun(1_000, session),
          await pausedRun(1_500, other),
          await pausedRun(500),
        ];
        for (const run of runs) await store.create(run);
        expect(await store.load(runs[0]!.runId)).toEqual(runs[0]);
        const listed = await store.listPending({ sessionId: session });
        expect(listed.items.map((item) => [item.runId, item.sessionId])).toEqual([
          [runs[1]!.runId, session],
          [runs[0]!.runId, session],
        ]);
        const both = await store.listPending({ sessionId: session, agent: runs[0]!.agentName });
        expect(both.items.map((item) => item.runId)).toEqual([runs[0]!.runId]);
        expect((await store.listPending({ sessionId: session, agent: runs[2]!.agentName })).items).toEqual([]);
        const agent = createAgentFor(runs[1]!);
        const done = await agent.execute(approveAll(runs[1]!, 'bob', { agent }));
        await store.commit(done, runs[1]!.version);
        expect((await store.load(done.runId))!.sessionId).toBe(session);
        expect((await store.listPending({ sessionId: session })).items.map((item) => item.runId)).toEqual([
          runs[0]!.runId,
        ]);
      }));

    it('lists a pending approval with who asked for its run, so "may still vote" can leave them out', () =>
      withStore(async ({ store }) => {
        const run = await pausedAgent().execute({ input: 'email someone', requestedBy: 'cy' });
        const other = await pausedRun();
        await store.create(run);
        await store.create(other);
        const items = (await store.listPending({ agent: run.agentName })).items;
        expect(items.map((item) => [item.runId, item.requestedBy])).toEqual([[run.runId, 'cy']]);
        const unasked = (await store.listPending({ agent: other.agentName })).items;
        expect(unasked.map((item) => item.runId)).toEqual([other.runId]);
        expect(unasked[0]).not.toHaveProperty('requestedBy');
      }));

    it('drops a run from the pending list once it is no longer waiting', () =>
      withStore(async ({ store }) => {
        const run = await pausedRun();
        await store.create(run);
        const agent = createAgentFor(run);
        const done = await agent.execute(approveAll(run, 'bob', { agent }));
        await store.commit(done, run.version);
        const page = await store.listPending({ agent: run.agentName });
        expect(page.items).toEqual([]);
      }));

    it('finds runs with expired approvals', () =>
      withStore(async ({ store }) => {
        const soon = await pausedRun(1_000);
        const later = await pausedRun(60_000);
        await store.create(soon);
        await store.create(later);
        const due = await store.expiredRuns(clockNow + 5_000, 1000);
        expect(due).toContain(soon.runId);
        expect(due).not.toContain(later.runId);
      }));

    it('keeps a key once (its OnceStore) until its time runs out, and reads it back', () =>
      withStore(async ({ store }) => {
        const once = store.once!;
        const key = `contract:${randomUUID()}`;
        expect(await once.putIfAbsent(key, 'first', 60_000)).toBeUndefined();
        expect(await once.putIfAbsent(key, 'second', 60_000)).toBe('first');
        // The same value again is the same claim (a resend whose reply was lost): claimed, not someone else's.
        expect(await once.putIfAbsent(key, 'first', 60_000)).toBeUndefined();
        expect(await once.get(key)).toBe('first');
        expect(await once.get(`${key}:other`)).toBeUndefined();
      }));

    it('replaces or drops a kept key only while it holds the expected value', () =>
      withStore(async ({ store }) => {
        const once = store.once!;
        const key = `contract:${randomUUID()}`;
        expect(await once.replace(key, 'claim', 'answer', 60_000)).toBe(false);
        expect(await once.putIfAbsent(key, 'claim', 60_000)).toBeUndefined();
        expect(await once.replace(key, 'someone else', 'answer', 60_000)).toBe(false);
        expect(await once.putIfAbsent(key, 'x', 60_000)).toBe('claim');
        expect(await once.replace(key, 'claim', 'answer', 60_000)).toBe(true);
        expect(await once.putIfAbsent(key, 'x', 60_000)).toBe('answer');
        expect(await once.replace(key, 'answer', undefined, 60_000)).toBe(true);
        // Dropped: the next putIfAbsent takes the key again.
        expect(await once.putIfAbsent(key, 'retry', 60_000)).toBeUndefined();
      }));

    it('deletes a run', () =>
      withStore(async ({ store }) => {
        const run = await pausedRun();
        await store.create(run);
        await store.delete(run.runId);
        expect(await store.load(run.runId)).toBeUndefined();
      }));

    it.skipIf(!hasPublished)('publishes the events of a commit after it lands', () =>
      withStore(async ({ store, published }) => {
        if (!published) throw new Error('this harness has no published(); pass hasPublished = false');
        const run = await pausedRun();
        const event: RunEvent = {
          type: 'approval-requested',
          runId: run.runId,
          agentName: run.agentName,
          request: run.pendingApprovals[0]!,
        };
        await store.create(run, [event]);
        expect((await published()).filter((item) => item.runId === run.runId)).toEqual([event]);
      }),
    );
  });
}

// A streaming model through the loop: deltas go out as model-delta events as they come and before the answer is
// committed, never into the snapshot; the answer is committed exactly as generate's would be; a stream that breaks
// or ends without its answer fails the run; aborting stops reading it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createMemoryStore,
  createRuntime,
  defineTool,
  serialize,
  type AgentSnapshot,
  type AssistantMessage,
  type Model,
  type ModelDeltaEvent,
  type ModelStreamPart,
  type RunEvent,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, testClock } from '../support/test-kit.js';

const thinking: AssistantMessage = {
  role: 'assistant',
  content: 'I will look both up.',
  parts: [
    { type: 'reasoning', text: 'Two records, one lookup each.', signature: 'sig_1' },
    { type: 'text', text: 'I will look both up.' },
  ],
  toolCalls: [
    { id: 'call_a', name: 'lookup', args: { id: 'record-a', fields: ['name', 'owner'] } },
    { id: 'call_b', name: 'lookup', args: { id: 'record-b', note: 'naïve ✓ 🎉' } },
  ],
};
const final = textTurn('Both belong to alice.');

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a record up',
  input: z.looseObject({ id: z.string() }),
  needsApproval: false,
  execute: async (input) => ({ id: input.id, owner: 'alice' }),
});

const isDelta = (event: { readonly type: string }): event is ModelDeltaEvent => event.type === 'model-delta';
const joined = (deltas: readonly ModelDeltaEvent[], kind: ModelDeltaEvent['kind'], toolCallId?: string) =>
  deltas
    .filter((delta) => delta.kind === kind && delta.toolCallId === toolCallId)
    .map((delta) => delta.delta)
    .join('');

/** Runs the script to its end with a fixed clock and run id; returns the result and, in order, the events and the commits. */
async function run(options: { stream: boolean }) {
  const timeline: (RunEvent | { type: 'checkpoint'; snapshot: AgentSnapshot })[] = [];
  const agent = testAgent({
    name: 'streaming-lookups',
    model: createScriptedModel([thinking, final], options),
    tools: [lookup],
    clock: testClock(),
    onEvent: (event) => timeline.push(event),
  });
  const done = await agent.execute(
    { input: 'who owns a and b?', runId: 'run_streaming' },
    {
      checkpoint: async (snapshot) => {
        timeline.push({ type: 'checkpoint', snapshot });
      },
    },
  );
  return { done, timeline };
}

describe('a streaming model in the loop', () => {
  it('sends every delta, in order, before the checkpoint that commits its answer, and the deltas add up to the answer', async () => {
    const { done, timeline } = await run({ stream: true });
    expect(done.status).toBe('completed');
    const deltas = timeline.filter(isDelta);
    expect(new Set(deltas.map((delta) => delta.runId))).toEqual(new Set(['run_streaming']));
    expect(new Set(deltas.map((delta) => delta.agentName))).toEqual(new Set(['streaming-lookups']));

    const first = deltas.filter((delta) => delta.turn === 1);
    expect(joined(first, 'reasoning')).toBe('Two records, one lookup each.');
    expect(joined(first, 'text')).toBe('I will look both up.');
    // A call's pieces say how much of its arguments arrived, never what: arguments can hold secrets.
    const chars = (id: string) =>
      first.filter((delta) => delta.toolCallId === id).reduce((sum, delta) => sum + (delta.argsChars ?? 0), 0);
    expect(chars('call_a')).toBe(JSON.stringify(thinking.toolCalls![0]!.args).length);
    expect(chars('call_b')).toBe(JSON.stringify(thinking.toolCalls![1]!.args).length);
    expect(joined(first, 'tool-call', 'call_a')).toBe('');
    // Reasoning, then text, then the calls in order; each call's first piece names its tool.
    expect([...new Set(first.map((delta) => `${delta.kind}:${delta.toolCallId ?? ''}`))]).toEqual([
      'reasoning:',
      'text:',
      'tool-call:call_a',
      'tool-call:call_b',
    ]);
    expect(
      first.filter((delta) => delta.toolName !== undefined).map((delta) => [delta.toolCallId, delta.toolName]),
    ).toEqual([
      ['call_a', 'lookup'],
      ['call_b', 'lookup'],
    ]);
    expect(
      joined(
        deltas.filter((delta) => delta.turn === 2),
        'text',
      ),
    ).toBe('Both belong to alice.');

    // Each turn's deltas all come before the first commit that holds its answer, and no commit holds a delta.
    for (const turn of [1, 2]) {
      const committed = timeline.findIndex((item) => item.type === 'checkpoint' && item.snapshot.turns >= turn);
      const last = timeline.findLastIndex((item) => isDelta(item) && item.turn === turn);
      expect(last).toBeGreaterThan(-1);
      expect(committed).toBeGreaterThan(last);
    }
    expect(JSON.stringify(done)).not.toContain('model-delta');
  });

  it('ends with the very snapshot the same answers give through generate, byte for byte', async () => {
    const streamed = await run({ stream: true });
    const generated = await run({ stream: false });
    expect(generated.timeline.some(isDelta)).toBe(false);
    expect(serialize(streamed.done)).toBe(serialize(generated.done));
    // The same events besides the deltas, in the same order.
    const committedEvents = (timeline: typeof streamed.timeline) =>
      timeline.filter((item) => item.type !== 'checkpoint' && !isDelta(item));
    expect(committedEvents(streamed.timeline)).toEqual(committedEvents(generated.timeline));
  });

  it('pauses for approval as usual: approval-requested comes after the deltas of the turn that asked', async () => {
    const events: RunEvent[] = [];
    const gated = defineTool({
      name: 'delete_file',
      description: 'Delete',
      input: z.object({ path: z.string() }),
      execute: async () => 'deleted',
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('delete_file', { path: '/tmp/x' })], { stream: true }),
      tools: [gated],
      onEvent: (event) => events.push(event),
    });
    const paused = await agent.execute({ input: 'remove /tmp/x' });
    expect(paused.status).toBe('awaitingApproval');
    expect(events.map((event) => event.type)).toEqual([
      ...events.filter(isDelta).map(() => 'model-delta'),
      'approval-requested',
    ]);
    expect(events.filter(isDelta).length).toBeGreaterThan(1);
  });

  it.each([
    [
      'ends without a finish part',
      async function* (): AsyncGenerator<ModelStreamPart> {
        yield { type: 'text-delta', delta: 'Deleting' };
      },
    ],
    [
      'throws midway',
      async function* (): AsyncGenerator<ModelStreamPart> {
        yield { type: 'text-delta', delta: 'Deleting' };
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      },
    ],
  ])('fails the run with model_error when the stream %s, after sending what came', async (_, stream) => {
    const events: RunEvent[] = [];
    const errors: unknown[] = [];
    const model: Model = {
      generate: () => Promise.reject(new Error('generate must not be called when stream exists')),
      stream,
    };
    const agent = testAgent({ model, tools: [], onEvent: (event) => events.push(event) });
    const failed = await agent.execute({ input: 'hi' }, { onError: (error) => errors.push(error) });
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('model_error');
    expect(failed.messages.filter((message) => message.role === 'assistant')).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['model-delta', 'run-failed']);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).not.toContain('generate must not be called');
  });

  it('stops reading the stream when the run is aborted, even from a model that ignores the signal, and the run is cancelled', async () => {
    const controller = new AbortController();
    const events: RunEvent[] = [];
    let pulled = 0;
    const model: Model = {
      generate: () => Promise.reject(new Error('unused')),
      async *stream() {
        for (const word of ['one', ' two', ' three', ' four']) {
          pulled += 1;
          yield { type: 'text-delta', delta: word };
        }
        yield { type: 'finish', response: { message: textTurn('one two three four') } };
      },
    };
    const agent = testAgent({
      model,
      tools: [],
      onEvent: (event) => {
        events.push(event);
        if (isDelta(event) && event.delta === ' two') controller.abort('the user left');
      },
    });
    const cancelled = await agent.execute({ input: 'count' }, { signal: controller.signal });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error?.message).toBe('the user left');
    expect(events.filter(isDelta).map((event) => event.delta)).toEqual(['one', ' two']);
    expect(pulled).toBe(3);
    expect(cancelled.messages.some((message) => message.role === 'assistant')).toBe(false);
  });

  it("reaches the runtime's subscribers and notifier as it comes, while the store's commits never carry a delta", async () => {
    const store = createMemoryStore();
    const committed: RunEvent[] = [];
    store.subscribe((event) => committed.push(event));
    const heard: string[] = [];
    const notified: string[] = [];
    const agent = testAgent({ model: createScriptedModel([textTurn('All done here.')], { stream: true }), tools: [] });
    const runtime = createRuntime({
      agents: [agent],
      store,
      notifier: {
        publish: async (events) => {
          notified.push(...events.map((event) => (isDelta(event) ? event.delta : event.type)));
        },
      },
    });
    runtime.subscribe((event) => heard.push(isDelta(event) ? event.delta : event.type));
    const done = await runtime.start(agent.name, { input: 'go' });
    expect(done.status).toBe('completed');
    expect(heard).toEqual(['All', ' done', ' here.', 'run-completed']);
    expect(notified).toEqual(heard);
    expect(committed.map((event) => event.type)).toEqual(['run-completed']);
  });
});

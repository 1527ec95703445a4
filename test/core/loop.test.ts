import { describe, expect, it } from 'vitest';
import { ConfigError, StopReason, defineTool, withApprovalResponse, type Message } from 'countersign';
import type { AgentSnapshot } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { z } from 'zod';
import { newLedger, pathTool } from '../support/core-harness.js';
import { testAgent, testClock } from '../support/test-kit.js';

describe('the agent loop', () => {
  it('a string input is one user message; instructions come first as a system message', async () => {
    const model = createScriptedModel([textTurn('hello back')]);
    const clock = testClock();
    const agent = testAgent({ model, tools: [], instructions: 'Be brief.', clock });
    const done = await agent.execute({ input: 'hello' });
    expect(model.calls[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ]);
    expect(done).toMatchObject({
      status: 'completed',
      stopReason: StopReason.Completed,
      output: 'hello back',
      turns: 1,
      createdAt: clock(),
      updatedAt: clock(),
    });
    expect(done.messages.at(-1)).toEqual({ role: 'assistant', content: 'hello back' });
    expect(done.runId).toMatch(/^run_/);
  });

  it('a Message[] input is the conversation so far, kept as given (its own system message wins)', async () => {
    const history: Message[] = [
      { role: 'system', content: 'You manage files.' },
      { role: 'user', content: 'list /tmp' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'old_1', name: 'list', args: { path: '/tmp' } }] },
      { role: 'tool', toolCallId: 'old_1', content: '["a","b"]' },
      { role: 'assistant', content: 'a and b' },
      { role: 'user', content: 'delete a' },
    ];
    const model = createScriptedModel([textTurn('ok')]);
    const agent = testAgent({ model, tools: [], instructions: 'ignored because the history has a system message' });
    const done = await agent.execute({ input: history });
    expect(model.calls[0]!.messages).toEqual(history);
    expect(done.messages).toEqual([...history, { role: 'assistant', content: 'ok' }]);
  });

  it('an empty or malformed input is refused with a ConfigError saying what to pass', async () => {
    const agent = testAgent({ model: createScriptedModel([]), tools: [] });
    await expect(agent.execute({ input: '' })).rejects.toThrow(ConfigError);
    await expect(agent.execute({ input: [] })).rejects.toThrow(/input has no messages/);
    await expect(agent.execute({ input: [{ role: 'robot', content: 'x' } as unknown as Message] })).rejects.toThrow(
      ConfigError,
    );
    await expect(agent.execute({ input: 'x', runId: 'has spaces' })).rejects.toThrow(/runId/);
  });

  it('stops with max_turns after maxTurns model turns without a final answer', async () => {
    const ledger = newLedger();
    const model = createScriptedModel(() => toolCallTurn('look', { path: '/x' }));
    const agent = testAgent({ model, tools: [pathTool('look', ledger, { needsApproval: false })], maxTurns: 3 });
    const done = await agent.execute({ input: 'loop forever' });
    expect(done).toMatchObject({
      status: 'failed',
      state: 'failed',
      stopReason: StopReason.MaxTurns,
      turns: 3,
      error: { code: 'max_turns' },
    });
    expect(done.error!.message).toContain('3 model turns');
    expect(model.calls).toHaveLength(3);
    expect(ledger.count()).toBe(3);
  });

  it('a model that throws fails the run with stop reason error and the message', async () => {
    const agent = testAgent({
      model: {
        generate: async () => {
          throw new Error('rate limited');
        },
      },
      tools: [],
    });
    const reported: unknown[] = [];
    const done = await agent.execute({ input: 'hi' }, { onError: (error) => reported.push(error) });
    expect(done).toMatchObject({
      status: 'failed',
      stopReason: StopReason.Error,
      error: {
        code: 'model_error',
        message: 'The model call failed; the details went to the operator (onError), not here.',
      },
    });
    expect(reported).toEqual([new Error('rate limited')]);
  });

  it('a model answer that is not an assistant message fails the run with invalid_model_response', async () => {
    const agent = testAgent({
      model: { generate: async () => ({ message: { role: 'user', content: 'x' } as never }) },
      tools: [],
    });
    const done = await agent.execute({ input: 'hi' });
    expect(done).toMatchObject({
      status: 'failed',
      stopReason: StopReason.Error,
      error: { code: 'invalid_model_response' },
    });
  });

  it('a scripted model that runs out of turns fails the run rather than hanging', async () => {
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('look', { path: '/x' })]),
      tools: [pathTool('look', newLedger(), { needsApproval: false })],
    });
    const done = await agent.execute({ input: 'hi' }, { onError: () => undefined });
    expect(done.error).toMatchObject({ code: 'model_error', message: expect.stringContaining('only 1 turns') });
  });

  it('tool return values reach the model as text: strings as they are, objects as JSON, undefined as ok', async () => {
    const results: unknown[] = ['plain text', { n: 1, big: 2n }, undefined];
    const tools = results.map((value, index) =>
      defineTool({
        name: `t${index}`,
        description: 'returns a value',
        input: z.object({}),
        needsApproval: false,
        execute: () => value,
      }),
    );
    const model = createScriptedModel([
      toolCallTurn(tools.map((tool) => ({ name: tool.name, args: {} }))),
      textTurn('ok'),
    ]);
    await testAgent({ model, tools }).execute({ input: 'go' });
    expect(
      model.calls[1]!.messages.filter((message) => message.role === 'tool').map((message) => message.content),
    ).toEqual(['plain text', '{"n":1,"big":"2"}', '{"status":"ok"}']);
  });

  it('checkpoints a frozen snapshot before every effect and before returning, versions rising', async () => {
    const seen: AgentSnapshot[] = [];
    const lastSaved = () => seen.at(-1);
    const atEffect: string[] = [];
    const model = createScriptedModel([
      () => {
        atEffect.push(`model 1 after v${lastSaved()?.version} ${lastSaved()?.state}`);
        return toolCallTurn([
          { name: 'look', args: { path: '/a' } },
          { name: 'look', args: { path: '/b' } },
        ]);
      },
      () => {
        atEffect.push(
          `model 2 after ${lastSaved()?.messages.filter((message) => message.role === 'tool').length} tool results`,
        );
        return textTurn('ok');
      },
    ]);
    const agent = testAgent({
      model,
      tools: [
        pathTool('look', newLedger(), {
          needsApproval: false,
          execute: ({ path }) =>
            void atEffect.push(
              `tool ${path} while ${lastSaved()!
                .toolCalls.map((record) => record.status)
                .join('/')}`,
            ),
        }),
      ],
    });
    const done = await agent.execute(
      { input: 'go' },
      {
        checkpoint: async (snap) => {
          expect(Object.isFrozen(snap)).toBe(true);
          expect(Object.isFrozen(snap.messages)).toBe(true);
          seen.push(snap);
        },
      },
    );
    // The lease of each call is saved before it runs; its result is saved before the next effect.
    expect(atEffect).toEqual([
      'model 1 after v1 callingModel',
      'tool /a while executing/approved',
      'tool /b while succeeded/executing',
      'model 2 after 2 tool results',
    ]);
    const versions = seen.map((snap) => snap.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(lastSaved()).toBe(done);
  });

  it('createAgent refuses a bad config and duplicate tool names with ConfigError', () => {
    const tool = pathTool('same', newLedger());
    expect(() => testAgent({ model: createScriptedModel([]), tools: [tool, tool] })).toThrow(
      /two tools are named same/,
    );
    expect(() => testAgent({ model: {} as never, tools: [] })).toThrow(ConfigError);
    expect(() => testAgent({ model: createScriptedModel([]), tools: [], approvalTtlMs: -1 })).toThrow(/approvalTtlMs/);
  });
});

describe('parsing a call once', () => {
  it('an auto-approved call runs with the value its evaluation parsed; an edited call is parsed again', async () => {
    let parses = 0;
    const input = z.object({ path: z.string() }).transform((value) => {
      parses++;
      return { path: value.path, parse: parses };
    });
    const seen: unknown[] = [];
    const tool = (name: string, needsApproval: boolean) =>
      defineTool({ name, description: name, input, needsApproval, execute: async (value) => void seen.push(value) });
    const model = createScriptedModel([
      toolCallTurn([
        { id: 'c1', name: 'read', args: { path: '/a' } },
        { id: 'c2', name: 'write', args: { path: '/b' } },
      ]),
      textTurn('done'),
    ]);
    const agent = testAgent({ model, tools: [tool('read', false), tool('write', true)] });
    const paused = await agent.execute({ input: 'go' });
    expect(parses).toBe(2);
    expect(seen).toEqual([{ path: '/a', parse: 1 }]);
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice', args: { path: '/c' } },
      { agent },
    );
    await agent.execute(approved);
    // The edit is validated against the schema again (once when approved, once when it runs), not taken from the evaluation.
    expect(seen.at(-1)).toMatchObject({ path: '/c' });
    expect(parses).toBeGreaterThan(2);
  });
});

describe('a start and a result as one step', () => {
  it('without a checkpoint a run ends in the same snapshot as with one, and every checkpointed snapshot stays frozen', async () => {
    const run = async (checkpoint?: (snapshot: AgentSnapshot) => Promise<void>) => {
      const tool = defineTool({
        name: 'read',
        description: 'read',
        input: z.object({ path: z.string() }),
        needsApproval: false,
        execute: async ({ path }) => path.toUpperCase(),
      });
      const model = createScriptedModel([
        toolCallTurn(['/a', '/b', '/c'].map((path, index) => ({ id: `c${index}`, name: 'read', args: { path } }))),
        textTurn('done'),
      ]);
      const agent = testAgent({ name: 'one-step', model, tools: [tool], clock: testClock() });
      return agent.execute(
        { input: 'go', runId: 'run_one_step' },
        checkpoint ? { checkpoint, leaseOwner: 'me' } : { leaseOwner: 'me' },
      );
    };
    const saved: AgentSnapshot[] = [];
    const withCheckpoint = await run(async (snapshot) => void saved.push(snapshot));
    const without = await run();
    expect(without).toEqual(withCheckpoint);
    expect(Object.isFrozen(without.toolCalls)).toBe(true);
    expect(saved.filter((snapshot) => snapshot.toolCalls.some((record) => record.status === 'executing'))).toHaveLength(
      3,
    );
    for (const snapshot of saved) expect(snapshot.toolCalls.every((record) => Object.isFrozen(record))).toBe(true);
  });

  it('without a checkpoint, aborting during a call of a turn stops before the next call: the finished one is kept, the rest never run', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const tool = defineTool({
      name: 'read',
      description: 'read',
      input: z.object({ path: z.string() }),
      needsApproval: false,
      execute: async ({ path }) => {
        ran.push(path);
        controller.abort('stop after the first');
        return path.toUpperCase();
      },
    });
    const model = createScriptedModel([
      toolCallTurn(['/a', '/b', '/c'].map((path, index) => ({ id: `c${index}`, name: 'read', args: { path } }))),
      textTurn('done'),
    ]);
    const agent = testAgent({ name: 'abort-mid-turn', model, tools: [tool], clock: testClock() });
    const stopped = await agent.execute({ input: 'go' }, { signal: controller.signal });
    expect(ran).toEqual(['/a']);
    expect(stopped).toMatchObject({
      status: 'cancelled',
      error: { code: 'cancelled', message: 'stop after the first' },
    });
    expect(stopped.toolCalls.map((record) => [record.toolCallId, record.status, record.result])).toEqual([
      ['c0', 'succeeded', '/A'],
      ['c1', 'approved', undefined],
      ['c2', 'approved', undefined],
    ]);
    expect(model.calls).toHaveLength(1);
  });
});

// A tool's timeoutMs: past it the call's signal fires and the run stops waiting; an idempotent call becomes an
// error the model reads, any other is put to a person again, as after a crash. Node's timers are faked: no test waits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ConfigError, defineTool, type ToolExecuteContext, ToolTimeoutError, withApprovalResponse } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent } from '../support/test-kit.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A `charge` tool with a 50 ms limit whose first call hangs until its signal fires, or (ignoring it) forever. */
function hangingCharge(options: { idempotent: boolean; ignoresSignal?: boolean }) {
  const seen: { reason?: unknown }[] = [];
  let calls = 0;
  const tool = defineTool({
    name: 'charge',
    description: 'Charge a card',
    input: z.object({ cents: z.number() }),
    needsApproval: false,
    idempotent: options.idempotent,
    timeoutMs: 50,
    execute: (_input, ctx: ToolExecuteContext) => {
      calls += 1;
      if (calls > 1) return 'charged';
      return new Promise((_resolve, reject) => {
        if (options.ignoresSignal) return;
        ctx.signal.addEventListener('abort', () => {
          seen.push({ reason: ctx.signal.reason });
          reject(ctx.signal.reason);
        });
      });
    },
  });
  const model = createScriptedModel([toolCallTurn('charge', { cents: 5 }), textTurn('done')]);
  return { agent: testAgent({ model, tools: [tool] }), seen, calls: () => calls, model };
}

describe('timeoutMs on a tool', () => {
  it('fires the signal of an idempotent call past its limit, and the model reads "<tool> timed out after N ms"', async () => {
    const { agent, seen, model } = hangingCharge({ idempotent: true });
    const running = agent.execute({ input: 'go' });
    await vi.advanceTimersByTimeAsync(50);
    const done = await running;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.reason).toBeInstanceOf(ToolTimeoutError);
    expect(done.status).toBe('completed');
    const result = done.messages.find((message) => message.role === 'tool')!;
    expect(JSON.parse(result.content)).toEqual({ status: 'error', error: 'charge timed out after 50 ms.' });
    expect(model.calls).toHaveLength(2);
  });

  it('puts a call that is not idempotent to a person again (outcome unknown); approving runs it once more', async () => {
    const { agent, seen, calls } = hangingCharge({ idempotent: false });
    const running = agent.execute({ input: 'go' });
    await vi.advanceTimersByTimeAsync(50);
    const paused = await running;
    expect(seen).toHaveLength(1);
    expect(paused.status).toBe('awaitingApproval');
    const request = paused.pendingApprovals[0]!;
    expect(request).toMatchObject({ toolName: 'charge', outcomeUnknown: true });
    expect(request.reason).toMatch(
      /cut off before it reported a result \(charge timed out after 50 ms\); it may or may not have taken effect/,
    );
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: request.approvalId, approved: true }, { agent }),
    );
    expect([done.status, calls()]).toEqual(['completed', 2]);
  });

  it('stops waiting for a tool that ignores its signal', async () => {
    const { agent } = hangingCharge({ idempotent: true, ignoresSignal: true });
    const running = agent.execute({ input: 'go' });
    await vi.advanceTimersByTimeAsync(50);
    const done = await running;
    expect(done.status).toBe('completed');
    expect(done.messages.find((message) => message.role === 'tool')!.content).toContain('charge timed out after 50 ms');
  });

  it('leaves a call that finishes in time alone', async () => {
    const tool = defineTool({
      name: 'quick',
      description: 'Quick',
      input: z.object({}),
      needsApproval: false,
      timeoutMs: 50,
      execute: () => 'fine',
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('quick', {}), textTurn('done')]),
      tools: [tool],
    });
    const done = await agent.execute({ input: 'go' });
    expect(done.messages.find((message) => message.role === 'tool')!.content).toBe('fine');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is refused by defineTool unless it is a whole number of milliseconds above 0', () => {
    const define = (timeoutMs: unknown) => () =>
      defineTool({
        name: 't',
        description: 'T',
        input: z.object({}),
        execute: () => 'x',
        timeoutMs: timeoutMs as number,
      });
    expect(define(0)).toThrow(ConfigError);
    expect(define(0)).toThrow(/timeoutMs must be above 0 milliseconds/);
    expect(define(1.5)).toThrow(/timeoutMs must be a whole number of milliseconds/);
    expect(define('50')).toThrow(/timeoutMs/);
  });
});

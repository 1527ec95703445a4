// countersign/claude-agent-sdk's canUseTool on the real runtime (memory store): decisions in time as the SDK's
// PermissionResult (the person's edit as updatedInput), the deadline path (a refusal that says a person was asked,
// the request left waiting), the decision carried to the next attempt of the same call (once, across runtimes on one
// store), and the request policy's rules and session grants. Time is faked: no test sleeps.
import type { PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError, createMemoryStore, createRuntime, type PolicyRule, type Runtime } from 'countersign';
import { type CanUseToolOptions, canUseTool } from 'countersign/claude-agent-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decideNext } from '../../support/claude-code-hook.js';

const approve = () => ({ approved: true, approvedBy: 'alice' });
const context = (toolUseID = 'toolu_01') => ({ signal: new AbortController().signal, toolUseID, requestId: 'req-1' });
const runtimeWith = (rules: PolicyRule[] = []) => createRuntime({ requests: { policy: { rules } } });

/** The requests a runtime announced, in order. */
function asked(runtime: Runtime): string[] {
  const runIds: string[] = [];
  runtime.subscribe((event) => event.type === 'approval-requested' && runIds.push(event.runId));
  return runIds;
}

/** The one request waiting in `runtime`. */
async function onlyPending(runtime: Runtime): Promise<{ runId: string; approvalId: string }> {
  const items = (await runtime.pending()).items;
  expect(items).toHaveLength(1);
  return { runId: items[0]!.runId, approvalId: items[0]!.request.approvalId };
}

/** canUseTool whose answers are never null (it always answers itself). */
function checker(runtime: Pick<Runtime, 'requestApproval' | 'once'>, options: CanUseToolOptions) {
  const check = canUseTool(runtime, options);
  return async (...args: Parameters<typeof check>): Promise<PermissionResult> => (await check(...args))!;
}

/** `promise`'s result once the faked clock has run `ms` on. */
async function settledAfter<T>(ms: number, promise: Promise<T>): Promise<T> {
  await vi.advanceTimersByTimeAsync(ms);
  return promise;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('canUseTool', () => {
  it('allows a call a person approved in time, with their edit as updatedInput and the SDK call id echoed', async () => {
    const runtime = runtimeWith();
    const check = checker(runtime, { sessionId: 'task-1' });
    decideNext(runtime, () => ({ ...approve(), args: { command: 'npm test -- --run', description: 'Run tests' } }));
    const result = await check('Bash', { command: 'npm test', description: 'Run tests' }, context());
    expect(result).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'npm test -- --run', description: 'Run tests' },
      toolUseID: 'toolu_01',
    } satisfies PermissionResult);
  });

  it('allows as asked with the input it was given, and denies with who and why, phrased so the model does not retry', async () => {
    const runtime = runtimeWith();
    const check = checker(runtime, { sessionId: 'task-1' });
    decideNext(runtime, approve);
    expect(await check('Read', { file_path: '/srv/a' }, context())).toMatchObject({
      behavior: 'allow',
      updatedInput: { file_path: '/srv/a' },
    });
    decideNext(runtime, () => ({ approved: false, approvedBy: 'bob', reason: 'prod is frozen' }));
    expect(await check('Bash', { command: 'kubectl apply -f prod.yaml' }, context('toolu_02'))).toEqual({
      behavior: 'deny',
      message:
        'bob denied this call in countersign: prod is frozen. Do not retry it or work around it; continue without it, or tell the user what you could not do.',
      toolUseID: 'toolu_02',
    });
  });

  it('answers by deadlineMs that a person was asked, leaves the request waiting, and gives the next attempt its decision at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runtime = runtimeWith();
    const requests = asked(runtime);
    const check = checker(runtime, { sessionId: 'task-2', deadlineMs: 30_000 });
    const input = { command: 'terraform apply' };
    const first = await settledAfter(30_000, check('Bash', input, context('toolu_a')));
    expect(first).toEqual({
      behavior: 'deny',
      message: expect.stringMatching(
        /^This call waits for a person to approve it in countersign \(request req_[\w-]+\); it did not run\. .*same input, later/,
      ),
      toolUseID: 'toolu_a',
    });
    expect(requests).toHaveLength(1);
    const { runId, approvalId } = await onlyPending(runtime);
    await runtime.respond(runId, { approvalId, ...approve() });
    // The model makes the same call again: the decision is there at once, from the same request.
    expect(await check('Bash', input, context('toolu_b'))).toEqual({
      behavior: 'allow',
      updatedInput: input,
      toolUseID: 'toolu_b',
    });
    expect(requests).toEqual([runId]);
    // A decision reaches one attempt: the same call later is asked about again.
    const third = check('Bash', input, context('toolu_c'));
    await vi.advanceTimersByTimeAsync(30_000);
    expect((await third).behavior).toBe('deny');
    expect(requests).toHaveLength(2);
  });

  it('carries a decision to the next attempt made by another runtime on the same store', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const store = createMemoryStore();
    const first = createRuntime({ store });
    const input = { file_path: '/srv/app/.env', content: 'DEBUG=1\n' };
    const waited = await settledAfter(
      5_000,
      checker(first, { sessionId: 's', deadlineMs: 5_000 })('Write', input, context()),
    );
    expect(waited.behavior).toBe('deny');
    const restarted = createRuntime({ store });
    const { runId, approvalId } = await onlyPending(restarted);
    await restarted.respond(runId, { approvalId, ...approve() });
    expect(await checker(restarted, { sessionId: 's' })('Write', input, context('toolu_2'))).toMatchObject({
      behavior: 'allow',
      updatedInput: input,
    });
  });

  it('makes one request for two attempts of the same call at once; the decision reaches one of them', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runtime = runtimeWith();
    const requests = asked(runtime);
    const check = checker(runtime, { sessionId: 'task-3', deadlineMs: 5_000 });
    const both = Promise.all([
      check('Bash', { command: 'make' }, context('a')),
      check('Bash', { command: 'make' }, context('b')),
    ]);
    await vi.advanceTimersByTimeAsync(100);
    expect(requests).toHaveLength(1);
    const { runId, approvalId } = await onlyPending(runtime);
    await runtime.respond(runId, { approvalId, ...approve() });
    await vi.advanceTimersByTimeAsync(5_000);
    // One attempt acts on the decision; the other asks again, and that request waits.
    expect((await both).map((result) => result.behavior).sort()).toEqual(['allow', 'deny']);
    expect(requests).toHaveLength(2);
  });

  it("allows and denies by the request policy's rules at once, and lets the session's grant cover its later calls", async () => {
    const runtime = runtimeWith([
      { id: 'no-force-push', tool: 'Bash', when: (args) => String(args.command).includes('--force'), action: 'deny' },
    ]);
    const requests = asked(runtime);
    const check = checker(runtime, { sessionId: 'task-4' });
    expect(await check('Bash', { command: 'git push --force' }, context())).toMatchObject({
      behavior: 'deny',
      message: expect.stringMatching(/^The countersign policy refused this call \(rule no-force-push\)/),
    });
    decideNext(runtime, () => ({ ...approve(), scope: 'session' }));
    expect((await check('Glob', { pattern: '**/*.md' }, context())).behavior).toBe('allow');
    expect((await check('Glob', { pattern: 'src/**' }, context())).behavior).toBe('allow');
    expect(requests).toHaveLength(1);
  });

  it('asks again about a call whose earlier request expired, instead of carrying the expiry', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runtime = runtimeWith();
    const requests = asked(runtime);
    const check = checker(runtime, { sessionId: 'task-5', deadlineMs: 5_000, expiresInMs: 10_000 });
    expect((await settledAfter(5_000, check('Bash', { command: 'make' }, context()))).behavior).toBe('deny');
    await vi.advanceTimersByTimeAsync(10_000);
    await runtime.sweepExpired();
    const again = check('Bash', { command: 'make' }, context('toolu_2'));
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    const { runId, approvalId } = await onlyPending(runtime);
    await runtime.respond(runId, { approvalId, ...approve() });
    expect((await again).behavior).toBe('allow');
  });

  it('answers at once when the SDK withdraws the call, and hands clarifying questions to onQuestion', async () => {
    const runtime = runtimeWith();
    const stop = new AbortController();
    const onQuestion = vi.fn(
      async (): Promise<PermissionResult> => ({ behavior: 'allow', updatedInput: { answers: {} } }),
    );
    const check = checker(runtime, { sessionId: 'task-6', onQuestion });
    const pending = check('Bash', { command: 'sleep 1' }, { ...context(), signal: stop.signal });
    stop.abort();
    expect((await pending).behavior).toBe('deny');
    expect(await check('AskUserQuestion', { questions: [] }, context())).toEqual({
      behavior: 'allow',
      updatedInput: { answers: {} },
    });
    expect(onQuestion).toHaveBeenCalledOnce();
  });

  it('denies, asking nobody, a call whose input a request refuses (a __proto__ key, nesting past the limit)', async () => {
    const runtime = runtimeWith();
    const check = checker(runtime, { sessionId: 'task-7' });
    const polluted = JSON.parse('{"command":"ls","__proto__":{"x":1}}') as Record<string, unknown>;
    const deep = JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`) as Record<string, unknown>;
    for (const input of [polluted, deep])
      expect(await check('mcp__x__y', input, context())).toMatchObject({
        behavior: 'deny',
        message: expect.stringMatching(/^countersign refused to ask about this call/),
      });
    expect((await runtime.pending()).items).toEqual([]);
  });

  it('refuses options without a session, naming the fix', () => {
    expect(() => canUseTool(runtimeWith(), {} as never)).toThrow(ConfigError);
    expect(() => canUseTool(runtimeWith(), { sessionId: 'has space' })).toThrow(/canUseTool: sessionId use 1 to 128/);
  });
});

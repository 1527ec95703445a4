// countersign/ui's AG-UI 1.0 binding run by AG-UI's own client (@ag-ui/client's HttpAgent over a real socket): a turn
// ends in an interrupt outcome with one interrupt per waiting request; a resume decides them through the one decision
// path and the tool runs once; interrupts not answered stay pending and come back; a reconnect snapshots the thread
// and, asked to watch, follows a decision made elsewhere. Forged resumes are refused.
import { HttpAgent, type Interrupt, type Message, type RunFinishedEvent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import { chatWorld, type ChatWorld } from '../support/chat-world.js';

let world: ChatWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SECRET = 'ag-ui-secret-0123456789abcdef0123';
const remove = (path: string) => ({ name: 'delete_file', args: { path } });
const asking = (...calls: unknown[]): Message => ({
  id: `u-${Math.random()}`,
  role: 'user',
  content: JSON.stringify(calls),
});

function agentFor(url: string, threadId: string, user = 'ana') {
  return new HttpAgent({ url: `${url}/api/ag-ui`, threadId, headers: { 'x-user': user } });
}

/** Runs `agent` and returns how the run finished (the RUN_FINISHED event) with the events' types. */
async function run(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}, onStarted?: () => void) {
  const types: string[] = [];
  let finished: RunFinishedEvent | undefined;
  await agent.runAgent(parameters, {
    onEvent: ({ event }) => {
      types.push(event.type);
    },
    onRunStartedEvent: () => {
      onStarted?.();
    },
    onRunFinishedEvent: ({ event }) => {
      finished = event;
    },
  });
  return { types, finished: finished! };
}

const resolved = (interrupt: Interrupt, approved: boolean, extra: Record<string, unknown> = {}) => ({
  interruptId: interrupt.id,
  status: 'resolved' as const,
  payload: { approved, ...extra },
  metadata: { signature: interrupt.metadata?.['signature'] },
});

describe('AG-UI 1.0, run by @ag-ui/client', () => {
  it('pauses with an interrupt per request, resumes with the answers, runs each tool once', async () => {
    world = await chatWorld({ decisionSecret: SECRET });
    const agent = agentFor(world.url, 't1');
    agent.addMessage(asking(remove('/a'), remove('/b')));
    const first = await run(agent);
    expect(first.types.slice(0, 2)).toEqual(['RUN_STARTED', 'TEXT_MESSAGE_START']);
    expect(first.types).toContain('TOOL_CALL_START');
    expect(first.finished.outcome?.type).toBe('interrupt');
    const interrupts = agent.pendingInterrupts;
    const pending = (await world.runtime.pending()).items;
    expect(interrupts.map((interrupt) => interrupt.id).sort()).toEqual(
      pending.map((item) => item.request.approvalId).sort(),
    );
    expect(interrupts[0]).toMatchObject({
      reason: 'tool_approval',
      message: expect.stringMatching(/^Delete \/[ab]\?$/),
      metadata: { signature: expect.stringMatching(/^v2\./), countersign: { toolName: 'delete_file' } },
    });
    const assistant = agent.messages.find((message) => message.role === 'assistant') as any;
    expect(assistant.toolCalls.map((call: any) => JSON.parse(call.function.arguments))).toEqual([
      { path: '/a' },
      { path: '/b' },
    ]);

    const [a, b] = [...interrupts].sort((x, y) => (x.message! < y.message! ? -1 : 1));
    const second = await run(agent, {
      resume: [resolved(a!, true), resolved(b!, false, { reason: 'not /b' })],
    });
    expect(second.finished.outcome).toBeUndefined();
    expect(second.finished.result).toMatch(/^Done: /);
    expect(world.deleted).toEqual(['/a']);
    const results = agent.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results).toEqual(
      expect.arrayContaining(['deleted /a', JSON.stringify({ status: 'denied', reason: 'not /b' })]),
    );
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('an answer to one of two keeps the other pending and returns it again', async () => {
    world = await chatWorld();
    const agent = agentFor(world.url, 't-partial');
    agent.addMessage(asking(remove('/a'), remove('/b')));
    await run(agent);
    const [a, b] = agent.pendingInterrupts;
    // HttpAgent insists on answering every open interrupt; a client that answers one posts the run input itself.
    const response = await fetch(`${world.url}/api/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': 'ana', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId: 't-partial', runId: 'r2', messages: [], resume: [resolved(a!, true)] }),
    });
    const text = await response.text();
    const finished = text
      .split('\n\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
      .find((event) => event.type === 'RUN_FINISHED');
    expect(finished.outcome.interrupts.map((interrupt: Interrupt) => interrupt.id)).toEqual([b!.id]);
    expect(world.deleted).toEqual([]);
    expect((await world.runtime.pending()).items.map((item) => item.request.approvalId)).toEqual([b!.id]);
  });

  it('a reconnect snapshots the thread; asked to watch, it follows a decision made elsewhere', async () => {
    world = await chatWorld();
    const agent = agentFor(world.url, 't-elsewhere');
    agent.addMessage(asking(remove('/x')));
    await run(agent);
    // A fresh page: a new client with nothing, reconnecting, sees the thread and the open interrupt.
    const fresh = agentFor(world.url, 't-elsewhere');
    const seen = await run(fresh);
    expect(seen.types).toContain('MESSAGES_SNAPSHOT');
    expect(fresh.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(fresh.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual(agent.pendingInterrupts.map((i) => i.id));

    const [pending] = (await world.runtime.pending()).items;
    // The watch is open once its run has started; then the decision comes from another surface.
    let started!: () => void;
    const open = new Promise<void>((resolve) => {
      started = resolve;
    });
    const watching = run(
      agentFor(world.url, 't-elsewhere'),
      { forwardedProps: { countersign: { watch: true } } },
      started,
    );
    await open;
    await world.runtime.decide(pending!.runId, {
      approvalId: pending!.request.approvalId,
      approved: true,
      approvedBy: 'slack:U1',
    });
    const followed = await watching;
    expect(followed.types).toContain('TOOL_CALL_RESULT');
    expect(followed.types.filter((type) => type === 'CUSTOM')).toHaveLength(1);
    expect(followed.finished.result).toBe('Done: deleted /x');
    expect(world.deleted).toEqual(['/x']);
  });

  it('refuses forged resumes: an unknown interrupt, a wrong signature, another user', async () => {
    world = await chatWorld({ decisionSecret: SECRET });
    const agent = agentFor(world.url, 't-forged');
    agent.addMessage(asking(remove('/a')));
    await run(agent);
    const [interrupt] = agent.pendingInterrupts;
    const post = (resume: unknown, user = 'ana') =>
      fetch(`${world!.url}/api/ag-ui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': user },
        body: JSON.stringify({ threadId: 't-forged', runId: 'r', messages: [], resume }),
      }).then(async (response) => ({
        status: response.status,
        code: ((await response.json()) as { code: string }).code,
      }));
    expect(await post([{ ...resolved(interrupt!, true), interruptId: 'apr_nope' }])).toEqual({
      status: 404,
      code: 'unknown_approval',
    });
    expect(await post([{ ...resolved(interrupt!, true), metadata: { signature: 'v2.forged' } }])).toEqual({
      status: 400,
      code: 'invalid_signature',
    });
    expect(await post([resolved(interrupt!, true)], 'bo')).toEqual({ status: 404, code: 'chat_not_found' });
    expect(await post([resolved(interrupt!, true, { args: { path: 42 } })])).toMatchObject({ status: 422 });
    expect(world.deleted).toEqual([]);
    expect((await world.runtime.pending()).items).toHaveLength(1);
  });
});

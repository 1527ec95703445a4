import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createScriptedModel, lastToolResults, textTurn, toolCallTurn } from 'countersign/testing';
import { loggedModel, newLedger, parsedResult, pathTool } from '../support/core-harness.js';
import { testAgent, testClock } from '../support/test-kit.js';

describe('resume replays the approved calls', () => {
  it('runs each approved call with its exact toolCallId and arguments before any model call', async () => {
    const ledger = newLedger();
    const model = loggedModel(
      [
        toolCallTurn([
          { id: 'call_first', name: 'delete_file', args: { path: '/a' } },
          { id: 'call_second', name: 'delete_file', args: { path: '/b' } },
        ]),
        textTurn('both deleted'),
      ],
      ledger,
    );
    const agent = testAgent({ model, tools: [pathTool('delete_file', ledger)], clock: testClock() });
    const paused = await agent.execute({ input: 'go' });
    expect(model.calls).toHaveLength(1);
    expect(ledger.timeline).toEqual(['model:1']);

    const resumed = deserialize(serialize(paused));
    const done = await agent.execute(
      withApprovalResponse(
        withApprovalResponse(
          resumed,
          { approvalId: resumed.pendingApprovals[0]!.approvalId, approved: true },
          { agent },
        ),
        { approvalId: resumed.pendingApprovals[1]!.approvalId, approved: true },
        { agent },
      ),
    );

    expect(ledger.timeline).toEqual([
      'model:1',
      'tool:delete_file:call_first',
      'tool:delete_file:call_second',
      'model:2',
    ]);
    expect(model.calls).toHaveLength(2);
    expect(ledger.executions.map((item) => [item.ctx.toolCallId, item.input])).toEqual([
      ['call_first', { path: '/a' }],
      ['call_second', { path: '/b' }],
    ]);
    // The second model call reads both results, paired with the call ids it used.
    const lastRequest = model.calls[1]!.messages;
    expect(lastRequest.filter((message) => message.role === 'tool').map((message) => message.toolCallId)).toEqual([
      'call_first',
      'call_second',
    ]);
    expect(done.status).toBe('completed');
    expect(done.output).toBe('both deleted');
  });

  it('gives every execution ctx.idempotencyKey = runId:toolCallId, a live AbortSignal, the run id and the messages so far', async () => {
    const ledger = newLedger();
    const agent = testAgent({
      model: createScriptedModel([
        toolCallTurn([{ id: 'call_7', name: 'delete_file', args: { path: '/a' } }]),
        textTurn('ok'),
      ]),
      tools: [pathTool('delete_file', ledger)],
    });
    const paused = await agent.execute({ input: 'go', runId: 'run_fixed-id' });
    await agent.execute(
      withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true }, { agent }),
    );
    const { ctx } = ledger.executions[0]!;
    expect(ctx.runId).toBe('run_fixed-id');
    expect(ctx.toolCallId).toBe('call_7');
    expect(ctx.idempotencyKey).toBe('run_fixed-id:call_7');
    expect(ctx.idempotencyKey).toBe(`${paused.runId}:call_7`);
    expect(ctx.signal).toBeInstanceOf(AbortSignal);
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('never re-runs a call that already has a result: auto-approved siblings ran before the pause and stay done', async () => {
    const ledger = newLedger();
    const model = loggedModel(
      [
        toolCallTurn([
          { id: 'call_read', name: 'read_file', args: { path: '/r' } },
          { id: 'call_del', name: 'delete_file', args: { path: '/d' } },
        ]),
        textTurn('done'),
      ],
      ledger,
    );
    const agent = testAgent({
      model,
      tools: [pathTool('read_file', ledger, { needsApproval: false }), pathTool('delete_file', ledger)],
      clock: testClock(),
    });
    const paused = await agent.execute({ input: 'go' });
    expect(ledger.timeline).toEqual(['model:1', 'tool:read_file:call_read']);
    expect(paused.toolCalls.map((record) => [record.toolCallId, record.status])).toEqual([
      ['call_read', 'succeeded'],
      ['call_del', 'pending'],
    ]);
    const approved = withApprovalResponse(
      deserialize(serialize(paused)),
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { agent },
    );
    const done = await agent.execute(approved);
    expect(ledger.timeline).toEqual(['model:1', 'tool:read_file:call_read', 'tool:delete_file:call_del', 'model:2']);
    expect(done.messages.filter((message) => message.role === 'tool').map((message) => message.toolCallId)).toEqual([
      'call_read',
      'call_del',
    ]);
    // Executing the finished snapshot again does nothing at all.
    expect(await agent.execute(done)).toBe(done);
    expect(ledger.timeline).toHaveLength(4);
  });

  it('a tool that throws after approval becomes an error result the model reads, and the loop goes on', async () => {
    const ledger = newLedger();
    const model = createScriptedModel([
      toolCallTurn('delete_file', { path: '/a' }),
      (request) => textTurn(`saw: ${JSON.stringify(lastToolResults(request.messages))}`),
    ]);
    const agent = testAgent({
      model,
      tools: [
        pathTool('delete_file', ledger, {
          execute: () => {
            throw new Error('disk on fire');
          },
        }),
      ],
    });
    const paused = await agent.execute({ input: 'go' });
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true }, { agent }),
    );
    expect(ledger.count()).toBe(1);
    expect(done.status).toBe('completed');
    const toolMessage = done.messages.find((message) => message.role === 'tool')!;
    expect(parsedResult(toolMessage.content)).toEqual({ status: 'error', error: 'delete_file failed: disk on fire' });
    expect(done.output).toContain('disk on fire');
  });

  it('malformed model arguments become a tool error result naming the field; nobody is asked, nothing runs', async () => {
    const ledger = newLedger();
    const model = createScriptedModel([toolCallTurn('delete_file', { path: 42 }), textTurn('I will fix the path')]);
    const agent = testAgent({ model, tools: [pathTool('delete_file', ledger)] });
    const done = await agent.execute({ input: 'go' });
    expect(done.status).toBe('completed');
    expect(done.pendingApprovals).toEqual([]);
    expect(done.audit).toEqual([]);
    expect(ledger.count()).toBe(0);
    const result = parsedResult(model.calls[1]!.messages.at(-1)!.content) as { status: string; error: string };
    expect(result.status).toBe('error');
    expect(result.error).toMatch(/^Invalid arguments for delete_file: path: .+Fix them and call again\.$/);
  });

  it('a call to an unknown tool becomes an error result listing the tools; siblings still go through the gate', async () => {
    const ledger = newLedger();
    const model = createScriptedModel([
      toolCallTurn([
        { id: 'call_x', name: 'format_disk', args: {} },
        { id: 'call_d', name: 'delete_file', args: { path: '/a' } },
      ]),
      textTurn('ok'),
    ]);
    const agent = testAgent({ model, tools: [pathTool('delete_file', ledger)] });
    const paused = await agent.execute({ input: 'go' });
    expect(paused.pendingApprovals.map((request) => request.toolCallId)).toEqual(['call_d']);
    expect(parsedResult(paused.toolCalls[0]!.result)).toEqual({
      status: 'error',
      error: 'Unknown tool format_disk. Available tools: delete_file.',
    });
  });

  it('tool parameters reach the model as JSON Schema', async () => {
    const model = createScriptedModel([textTurn('hi')]);
    const tool = defineTool({
      name: 'greet',
      description: 'Greets',
      input: z.object({ who: z.string() }),
      execute: () => 'hi',
    });
    await testAgent({ model, tools: [tool] }).execute({ input: 'hello' });
    expect(model.calls[0]!.tools).toEqual([
      {
        name: 'greet',
        description: 'Greets',
        parameters: expect.objectContaining({
          type: 'object',
          properties: { who: { type: 'string' } },
          required: ['who'],
        }),
      },
    ]);
  });
});

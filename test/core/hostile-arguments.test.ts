import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, deserialize, presentArgs, serialize, withApprovalResponse, type ModelRequest } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { canonicalJson, digestOf } from '../../src/run/digest.js';
import { testAgent } from '../support/test-kit.js';

/** `levels` objects nested in one another, the innermost holding a string. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let index = 0; index < levels; index++) value = { inner: value };
  return value;
}

/** A gated tool the model calls once with `args`, then answers; the requests the model saw are kept. */
function agentCalling(args: unknown) {
  const executed: unknown[] = [];
  const requests: ModelRequest[] = [];
  const tool = defineTool({
    name: 'write_file',
    description: 'Write a file',
    input: z.looseObject({ path: z.string() }),
    needsApproval: true,
    execute: (input) => {
      executed.push(input);
      return 'written';
    },
  });
  const model = createScriptedModel((request) => {
    requests.push(request);
    return request.messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('write_file', args);
  });
  const agent = testAgent({ model, tools: [tool] });
  return { agent, executed, requests };
}

describe('model arguments with prototype keys or extreme depth are invalid calls', () => {
  it.each([
    ['__proto__ at the top', '{"path":"/etc/passwd","__proto__":{"mode":"0777"}}', '(root)', '__proto__'],
    ['constructor inside an object', '{"path":"/tmp/a","meta":{"constructor":{"x":1}}}', 'meta', 'constructor'],
    ['prototype inside an array', '{"path":"/tmp/a","list":[{"prototype":1}]}', 'list.0', 'prototype'],
  ])('%s: nobody is asked, nothing runs, and the model reads why', async (_label, text, path, key) => {
    const { agent, executed, requests } = agentCalling(JSON.parse(text));
    const done = await agent.execute({ input: 'write it' });
    expect(done.status).toBe('completed');
    expect(done.pendingApprovals).toEqual([]);
    expect(executed).toEqual([]);
    const result = requests[1]!.messages.at(-1)!;
    expect(result.role).toBe('tool');
    expect(result.content).toContain('Invalid arguments for write_file');
    expect(result.content).toContain(`${path}: the key \\"${key}\\" is refused anywhere in arguments`);
    expect(result.content).toContain('Call again without that key');
  });

  it('arguments nested 5,000 deep are refused with a message, not a stack overflow; 64 levels are still asked about', async () => {
    const deep = agentCalling({ path: '/tmp/a', data: nested(5_000) });
    const done = await deep.agent.execute({ input: 'write it' });
    expect(done.status).toBe('completed');
    expect(deep.executed).toEqual([]);
    // The history keeps the call cut at the limit, so the run can still be stored.
    expect(deserialize(serialize(done)).status).toBe('completed');
    expect(deep.requests[1]!.messages.at(-1)!.content).toMatch(
      /Invalid arguments for write_file: data\.inner[.a-z…]*: nests deeper than 64 levels\. Call again with arguments at most 64 levels deep/,
    );

    // The root object and 63 below it: 64 levels, the most a call (and an HTTP body) may have.
    const edge = agentCalling({ path: '/tmp/a', data: nested(63) });
    expect((await edge.agent.execute({ input: 'write it' })).status).toBe('awaitingApproval');
    const over = agentCalling({ path: '/tmp/a', data: nested(64) });
    expect((await over.agent.execute({ input: 'write it' })).status).toBe('completed');
  });

  it('an edit carrying a __proto__ key or nesting too deep is refused as invalid_edit, and nothing runs', async () => {
    const { agent, executed } = agentCalling({ path: '/tmp/a' });
    const paused = await agent.execute({ input: 'write it' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    for (const args of [
      JSON.parse('{"path":"/tmp/a","__proto__":{"path":"/etc/shadow"}}'),
      { path: '/tmp/a', data: nested(100) },
    ]) {
      let error: unknown;
      try {
        withApprovalResponse(paused, { approvalId, approved: true, approvedBy: 'alice', args }, { agent });
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: 'invalid_edit', approvalId });
    }
    expect(paused.status).toBe('awaitingApproval');
    expect(executed).toEqual([]);
  });
});

describe('a history handed to execute', () => {
  it('with tool call arguments nested 5,000 deep is refused with a ConfigError, not a stack overflow, and nothing is called', async () => {
    const { agent, requests } = agentCalling({ path: '/tmp/a' });
    const history = [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'write_file', args: nested(5_000) }] },
      { role: 'tool' as const, content: 'ok', toolCallId: 'c1' },
    ];
    await expect(agent.execute({ input: history })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('nested deeper than 64 levels'),
    });
    expect(requests).toEqual([]);
  });
});

describe('encoders keep every key and refuse extreme depth', () => {
  it('the canonical JSON and digest bind a __proto__ own key', () => {
    const parsed = JSON.parse('{"path":"/tmp/a","__proto__":{"path":"/etc/shadow"}}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"path":"/etc/shadow"},"path":"/tmp/a"}');
    expect(digestOf(parsed)).not.toBe(digestOf({ path: '/tmp/a' }));
  });

  it('the display copy shows a __proto__ own key and what is under it', () => {
    const { display } = presentArgs(JSON.parse('{"path":"/tmp/a","__proto__":{"command":"rm -rf /"}}'));
    expect(Object.keys(display as object)).toEqual(['path', '__proto__']);
    expect(JSON.stringify(display)).toBe('{"path":"/tmp/a","__proto__":{"command":"rm -rf /"}}');
    expect(Object.getPrototypeOf(display)).toBe(Object.prototype);
  });

  it('a value 5,000 deep (e.g. read back from storage) gets a typed value_too_deep error from both, not a stack overflow', () => {
    const deep = { path: '/tmp/a', data: nested(5_000) };
    expect(() => canonicalJson(deep)).toThrow(expect.objectContaining({ code: 'value_too_deep', maxDepth: 128 }));
    expect(() => presentArgs(deep)).toThrow(expect.objectContaining({ code: 'value_too_deep', maxDepth: 128 }));
    expect(() => canonicalJson(nested(127))).not.toThrow();
    expect(() => presentArgs(nested(127))).not.toThrow();
  });
});

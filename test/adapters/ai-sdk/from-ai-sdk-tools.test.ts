// fromAiSdkTools: tools written with the AI SDK's tool() and jsonSchema() run in a countersign agent, gated as
// their needsApproval says.
import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveAll, ConfigError, createAgent } from 'countersign';
import { fromAiSdkTools } from 'countersign/ai-sdk';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

describe('fromAiSdkTools', () => {
  it('gates each call as its needsApproval says (a function of the input, false, or left out: gated), and runs it with the AI SDK execute options', async () => {
    const ran: { tool: string; input: unknown; toolCallId: string; aborts: boolean; firstMessage: unknown }[] = [];
    const record =
      (name: string) =>
      async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal; messages: unknown[] }) => {
        ran.push({
          tool: name,
          input,
          toolCallId: options.toolCallId,
          aborts: options.abortSignal instanceof AbortSignal,
          firstMessage: options.messages[0],
        });
        return { ok: true };
      };
    const tools = fromAiSdkTools({
      delete_file: tool({
        description: 'Delete a file',
        inputSchema: z.object({ path: z.string() }),
        needsApproval: async ({ path }) => path.startsWith('/etc/'),
        execute: record('delete_file'),
      }),
      read_file: tool({
        description: 'Read a file',
        inputSchema: z.object({ path: z.string() }),
        needsApproval: false,
        execute: record('read_file'),
      }),
      write_file: tool({
        description: 'Write a file',
        inputSchema: z.object({ path: z.string(), text: z.string() }),
        execute: record('write_file'),
      }),
    });
    const agent = createAgent({
      name: 'ai-sdk-tools',
      model: createScriptedModel([
        toolCallTurn([
          { id: 'c1', name: 'delete_file', args: { path: '/tmp/a' } },
          { id: 'c2', name: 'delete_file', args: { path: '/etc/b' } },
          { id: 'c3', name: 'read_file', args: { path: '/tmp/r' } },
          { id: 'c4', name: 'write_file', args: { path: '/tmp/w', text: 'hi' } },
        ]),
        textTurn('Done.'),
      ]),
      tools,
    });
    const paused = await agent.execute({ input: 'tidy up' });
    expect(paused.pendingApprovals.map((request) => request.toolCallId).sort()).toEqual(['c2', 'c4']);
    const done = await agent.execute(approveAll(paused, 'alice', { agent }));
    expect(done.output).toBe('Done.');
    expect(ran.map((entry) => entry.toolCallId).sort()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(ran.find((entry) => entry.toolCallId === 'c4')).toEqual({
      tool: 'write_file',
      input: { path: '/tmp/w', text: 'hi' },
      toolCallId: 'c4',
      aborts: true,
      firstMessage: { role: 'user', content: [{ type: 'text', text: 'tidy up' }] },
    });
  });

  it('reads a jsonSchema() input with zod: the spec the model sees and the validation of its arguments', async () => {
    const [lookup] = fromAiSdkTools({
      lookup: tool({
        description: 'Look a user up',
        inputSchema: jsonSchema<{ id: number }>({
          type: 'object',
          properties: { id: { type: 'integer' } },
          required: ['id'],
          additionalProperties: false,
        }),
        needsApproval: false,
        execute: async ({ id }) => `user ${id}`,
      }),
    });
    expect(lookup!.spec.parameters).toMatchObject({
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
    });
    expect(lookup!.input.safeParse({ id: 7 }).success).toBe(true);
    expect(lookup!.input.safeParse({ id: 'seven' }).success).toBe(false);
  });

  it('takes the last value of an execute that streams (an async generator), as the AI SDK does', async () => {
    const [progress] = fromAiSdkTools({
      progress: tool({
        description: 'Count to three',
        inputSchema: z.object({}),
        needsApproval: false,
        async *execute() {
          yield 'one';
          yield 'two';
          yield 'three';
        },
      }),
    });
    const output = await progress!.execute(
      {},
      { runId: 'r', toolCallId: 'c', messages: [], idempotencyKey: 'r:c', signal: new AbortController().signal },
    );
    expect(output).toBe('three');
  });

  it('refuses a tool without execute, and an input schema that is not zod 4, saying what to write instead', () => {
    expect(() =>
      fromAiSdkTools({ client_side: tool({ description: 'Asks the browser', inputSchema: z.object({}) }) }),
    ).toThrow(
      expect.objectContaining({
        code: 'missing_option',
        message: expect.stringContaining('"client_side" has no execute'),
      }),
    );
    const valibotLike = { '~standard': { version: 1, vendor: 'valibot', validate: () => ({ value: {} }) } };
    expect(() =>
      fromAiSdkTools({ other: { description: 'x', inputSchema: valibotLike, execute: () => 1 } as never }),
    ).toThrow(ConfigError);
    expect(() =>
      fromAiSdkTools({ other: { description: 'x', inputSchema: valibotLike, execute: () => 1 } as never }),
    ).toThrow(/a valibot schema that is not zod 4.*import \{ z \} from 'zod'/);
  });
});

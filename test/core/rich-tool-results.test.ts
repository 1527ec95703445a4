import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, defineTool, deserialize, serialize, toolResult } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { PNG, screenshot } from '../support/rich-tool-history.js';
import { testAgent } from '../support/test-kit.js';

describe('toolResult: a tool hands back files and a structured output beside its text', () => {
  it('the tool message carries the files as file parts and the structured output on its tool-result part; both survive the store', async () => {
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('screenshot', { url: 'https://example.com' }), textTurn('done')]),
      tools: [screenshot],
    });
    const done = await agent.execute({ input: 'go' });
    const message = done.messages.find((item) => item.role === 'tool')!;
    expect(message.content).toBe('Screenshot of https://example.com');
    expect(message.parts).toEqual([
      { type: 'file', mediaType: 'image/png', data: PNG },
      {
        type: 'tool-result',
        toolCallId: message.toolCallId,
        toolName: 'screenshot',
        outcome: 'ok',
        output: { width: 800, height: 600 },
      },
    ]);
    expect(deserialize(serialize(done))).toEqual(done);
  });

  it('a plain object a tool returns is still text, whatever keys it has', async () => {
    const plain = defineTool({
      name: 'plain',
      description: 'Plain',
      input: z.object({}),
      needsApproval: false,
      execute: () => ({ text: 'x', files: [] }),
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('plain', {}), textTurn('done')]),
      tools: [plain],
    });
    const message = (await agent.execute({ input: 'go' })).messages.find((item) => item.role === 'tool')!;
    expect(message.content).toBe('{"text":"x","files":[]}');
    expect(message.parts).toHaveLength(1);
  });

  it('a file without data or url, or an output that is not plain JSON, is refused by name', () => {
    expect(() => toolResult({ text: 'x', files: [{ mediaType: 'image/png' }] })).toThrow(ConfigError);
    expect(() => toolResult({ text: 'x', files: [{ mediaType: 'image/png' }] })).toThrow(
      /toolResult: files\.0 .*either data \(base64\) or a url/,
    );
    expect(() => toolResult({ text: 'x', structured: new Date() as never })).toThrow(
      /toolResult: structured must be plain JSON/,
    );
  });
});

// A conversation in which two tools handed back files (toolResult), made by a real run: what every model adapter's
// suite sends to its provider to show where a tool's files and structured output go on that provider's wire.
import { z } from 'zod';
import { defineTool, type Message, toolResult } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent } from './test-kit.js';

export const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
export const PDF = Buffer.from('%PDF-1.7\n').toString('base64');
export const CHART_URL = 'https://example.com/chart.jpg';

/** A tool that hands back a PNG and a structured output. */
export const screenshot = defineTool({
  name: 'screenshot',
  description: 'Take a screenshot',
  input: z.object({ url: z.string() }),
  needsApproval: false,
  execute: ({ url }) =>
    toolResult({
      text: `Screenshot of ${url}`,
      files: [{ mediaType: 'image/png', data: PNG }],
      structured: { width: 800, height: 600 },
    }),
});

/** The user message the Anthropic Messages API gets for the two results of `richToolHistory`, from either adapter. */
export const anthropicToolResults = {
  role: 'user',
  content: [
    {
      type: 'tool_result',
      tool_use_id: 'call_shot',
      content: [
        { type: 'text', text: 'Screenshot of https://example.com' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      ],
    },
    {
      type: 'tool_result',
      tool_use_id: 'call_report',
      content: [
        { type: 'text', text: 'The report and its chart' },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
        { type: 'image', source: { type: 'url', url: CHART_URL } },
      ],
    },
  ],
};

/** The user's request, the assistant's two calls (`call_shot`, `call_report`) and their results, with files. */
export async function richToolHistory(): Promise<Message[]> {
  const report = defineTool({
    name: 'fetch_report',
    description: 'Fetch the report',
    input: z.object({}),
    needsApproval: false,
    execute: () =>
      toolResult({
        text: 'The report and its chart',
        files: [
          { mediaType: 'application/pdf', data: PDF, filename: 'report.pdf' },
          { mediaType: 'image/jpeg', url: CHART_URL },
        ],
      }),
  });
  const calls = [
    { id: 'call_shot', name: 'screenshot', args: { url: 'https://example.com' } },
    { id: 'call_report', name: 'fetch_report', args: {} },
  ];
  const agent = testAgent({
    model: createScriptedModel([toolCallTurn(calls), textTurn('done')]),
    tools: [screenshot, report],
  });
  const done = await agent.execute({ input: 'Show me example.com and the report' });
  return done.messages.slice(0, -1);
}

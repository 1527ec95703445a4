// Where the files and the structured output a tool handed back (toolResult) go in an AI SDK prompt: the prompt a
// hand-made v3 and v2 model receive, and the request the real @ai-sdk/anthropic provider sends to a loopback server.
import { createAnthropic } from '@ai-sdk/anthropic';
import { describe, expect, it } from 'vitest';
import type { Message } from 'countersign';
import { createAiSdkModel } from 'countersign/ai-sdk';
import { useFake } from '../../support/model-fixtures.js';
import { anthropicToolResults, CHART_URL, PDF, PNG, richToolHistory } from '../../support/rich-tool-history.js';
import { anthropicMessage } from './anthropic-wire.js';
import { startFakeProviderApi } from './fake-provider-api.js';

const apis = useFake(startFakeProviderApi);

const answers = {
  v3: {
    content: [{ type: 'text', text: 'Seen.' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
    warnings: [],
  },
  v2: {
    content: [{ type: 'text', text: 'Seen.' }],
    finishReason: 'stop',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    warnings: [],
  },
};

/** A hand-made model of `version` that records the prompts it is given. */
function recordingModel(version: 'v2' | 'v3') {
  const prompts: unknown[] = [];
  const model = {
    specificationVersion: version,
    provider: 'hand-made',
    modelId: 'm-1',
    supportedUrls: {},
    doGenerate: async (options: { prompt: unknown[] }) => {
      prompts.push(options.prompt.at(-1));
      return answers[version];
    },
    doStream: async () => {
      throw new Error('not used');
    },
  };
  return { prompts, model: createAiSdkModel({ model: model as never }) };
}

const toolMessage = (shot: unknown[], report: unknown[]) => ({
  role: 'tool',
  content: [
    { type: 'tool-result', toolCallId: 'call_shot', toolName: 'screenshot', output: { type: 'content', value: shot } },
    {
      type: 'tool-result',
      toolCallId: 'call_report',
      toolName: 'fetch_report',
      output: { type: 'content', value: report },
    },
  ],
});

describe('createAiSdkModel: a tool result with files', () => {
  it('v3: content output with the text, then image-data, file-data and image-url items', async () => {
    const { model, prompts } = recordingModel('v3');
    await model.generate({ messages: await richToolHistory(), tools: [] });
    expect(prompts[0]).toEqual(
      toolMessage(
        [
          { type: 'text', text: 'Screenshot of https://example.com' },
          { type: 'image-data', data: PNG, mediaType: 'image/png' },
        ],
        [
          { type: 'text', text: 'The report and its chart' },
          { type: 'file-data', data: PDF, mediaType: 'application/pdf', filename: 'report.pdf' },
          { type: 'image-url', url: CHART_URL },
        ],
      ),
    );
  });

  it('v2: content output with media items for base64 files, and a linked file named in text (v2 has no url item)', async () => {
    const { model, prompts } = recordingModel('v2');
    await model.generate({ messages: await richToolHistory(), tools: [] });
    expect(prompts[0]).toEqual(
      toolMessage(
        [
          { type: 'text', text: 'Screenshot of https://example.com' },
          { type: 'media', data: PNG, mediaType: 'image/png' },
        ],
        [
          { type: 'text', text: 'The report and its chart' },
          { type: 'media', data: PDF, mediaType: 'application/pdf' },
          { type: 'text', text: `[file: image/jpeg ${CHART_URL}]` },
        ],
      ),
    );
  });

  it('a structured output without files is a json output', async () => {
    const { model, prompts } = recordingModel('v3');
    const withoutFiles = (await richToolHistory()).map(
      (message): Message => ({ ...message, parts: (message.parts ?? []).filter((part) => part.type !== 'file') }),
    );
    await model.generate({ messages: withoutFiles.slice(0, 3), tools: [] });
    expect(prompts[0]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_shot',
          toolName: 'screenshot',
          output: { type: 'json', value: { width: 800, height: 600 } },
        },
      ],
    });
  });

  it('over @ai-sdk/anthropic the files reach the Messages API as image and document blocks in the tool_result', async () => {
    apis.current.script(
      anthropicMessage({
        id: 'msg_1',
        content: [{ type: 'text', text: 'Seen.' }],
        stopReason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
    const model = createAiSdkModel({
      model: createAnthropic({ baseURL: apis.current.baseURL, apiKey: 'sk-ant-test' })('claude-sonnet-4-5'),
    });
    await model.generate({ messages: await richToolHistory(), tools: [] });
    expect(apis.current.requests[0]!.json.messages.at(-1)).toEqual(anthropicToolResults);
  });
});

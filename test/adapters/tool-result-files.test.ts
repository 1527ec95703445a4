// Where the files and the structured output a tool handed back (toolResult) go on each provider's wire, checked on the
// request bodies the Anthropic and OpenAI Responses adapters send to fake providers on loopback.
import { describe, expect, it } from 'vitest';
import { createAnthropicModel } from 'countersign/anthropic';
import { createOpenAIResponsesModel } from 'countersign/openai';
import { ANTHROPIC_API_KEY, messageAnswer, startFakeAnthropic } from '../support/fake-anthropic.js';
import { OPENAI_KEY, startFakeResponses } from '../support/fake-openai-responses.js';
import { useFake } from '../support/model-fixtures.js';
import { messageItem } from '../support/responses-items.js';
import { anthropicToolResults, CHART_URL, PDF, PNG, richToolHistory } from '../support/rich-tool-history.js';

const anthropic = useFake(startFakeAnthropic);
const responses = useFake(startFakeResponses);

describe('a tool result with files, on the wire', () => {
  it('Anthropic: each tool_result has its text, then the image as a base64 or url image block and the PDF as a document block', async () => {
    anthropic.current.answer(messageAnswer([{ type: 'text', text: 'Seen.' }]));
    const model = createAnthropicModel({
      model: 'claude-test',
      apiKey: ANTHROPIC_API_KEY,
      baseUrl: anthropic.current.baseUrl,
    });
    await model.generate({ messages: await richToolHistory(), tools: [] });
    expect(anthropic.current.requests[0]!.json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Show me example.com and the report' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_shot', name: 'screenshot', input: { url: 'https://example.com' } },
          { type: 'tool_use', id: 'call_report', name: 'fetch_report', input: {} },
        ],
      },
      anthropicToolResults,
    ]);
  });

  it('OpenAI Responses: each function_call_output is a list of input_text, input_image (data URL or url) and input_file', async () => {
    responses.current.script({ output: [messageItem('Seen.')] });
    const model = createOpenAIResponsesModel({
      model: 'gpt-5-mini',
      apiKey: OPENAI_KEY,
      baseUrl: responses.current.baseUrl,
    });
    await model.generate({ messages: await richToolHistory(), tools: [] });
    expect(responses.current.requests[0]!.json['input']).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'Show me example.com and the report' }] },
      { type: 'function_call', call_id: 'call_shot', name: 'screenshot', arguments: '{"url":"https://example.com"}' },
      { type: 'function_call', call_id: 'call_report', name: 'fetch_report', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'call_shot',
        output: [
          { type: 'input_text', text: 'Screenshot of https://example.com' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
        ],
      },
      {
        type: 'function_call_output',
        call_id: 'call_report',
        output: [
          { type: 'input_text', text: 'The report and its chart' },
          { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF}` },
          { type: 'input_image', image_url: CHART_URL },
        ],
      },
    ]);
  });
});

// stream: false, for a gateway that cannot pass server-sent events: the model answers in one piece, and the loop,
// which streams whenever a model has `stream`, calls generate.
import { describe, expect, it } from 'vitest';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAiSdkModel } from 'countersign/ai-sdk';
import { createAnthropicModel } from 'countersign/anthropic';
import { createOpenAIChatModel, createOpenAIResponsesModel } from 'countersign/openai';

describe('the stream option of every model adapter', () => {
  const models = {
    anthropic: (stream?: boolean) =>
      createAnthropicModel({ model: 'claude-x', apiKey: 'k', ...(stream === undefined ? {} : { stream }) }),
    'openai responses': (stream?: boolean) =>
      createOpenAIResponsesModel({ model: 'gpt-x', apiKey: 'k', ...(stream === undefined ? {} : { stream }) }),
    'openai chat': (stream?: boolean) =>
      createOpenAIChatModel({ model: 'gpt-x', apiKey: 'k', ...(stream === undefined ? {} : { stream }) }),
    'ai sdk': (stream?: boolean) =>
      createAiSdkModel({
        model: createAnthropic({ apiKey: 'k' })('claude-x'),
        ...(stream === undefined ? {} : { stream }),
      }),
  };
  it.each(Object.entries(models))(
    '%s streams by default and answers in one piece with stream: false',
    (_name, make) => {
      expect(typeof make().stream).toBe('function');
      expect(make(false).stream).toBeUndefined();
      expect(typeof make(false).generate).toBe('function');
      expect(() => make('no' as never)).toThrow(/stream/);
    },
  );
});

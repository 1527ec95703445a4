// One Anthropic Messages API answer in both of the API's shapes, from one description: the JSON message of a plain
// call (https://docs.anthropic.com/en/api/messages) and the server-sent events of a streamed one
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming), each block opened empty, filled by deltas, closed.
import type { ProviderRequest, ScriptedAnswer, ScriptedEvent } from './fake-provider-api.js';

export type AnthropicBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicAnswer {
  readonly id: string;
  readonly content: readonly AnthropicBlock[];
  readonly stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number };
}

const message = (answer: AnthropicAnswer, content: readonly AnthropicBlock[]) => ({
  id: answer.id,
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content,
  stop_reason: answer.stopReason,
  stop_sequence: null,
  usage: answer.usage,
});

/** The answer as the JSON body of a plain call. */
export const anthropicMessage = (answer: AnthropicAnswer): ScriptedAnswer => ({
  body: message(answer, answer.content),
});

/** Halves of `text`, so every block streams in more than one delta. */
export const halves = (text: string): string[] => [
  text.slice(0, Math.ceil(text.length / 2)),
  text.slice(Math.ceil(text.length / 2)),
];

function deltas(block: AnthropicBlock): object[] {
  if (block.type === 'thinking')
    return [
      ...halves(block.thinking).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: block.signature },
    ];
  if (block.type === 'text') return halves(block.text).map((text) => ({ type: 'text_delta', text }));
  if (block.type === 'tool_use')
    return halves(JSON.stringify(block.input)).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  return [];
}

function opened(block: AnthropicBlock): AnthropicBlock {
  if (block.type === 'thinking') return { type: 'thinking', thinking: '', signature: '' };
  if (block.type === 'text') return { type: 'text', text: '' };
  if (block.type === 'tool_use') return { ...block, input: {} };
  return block;
}

/** The answer as the server-sent events of a streamed call. */
export function anthropicEvents(answer: AnthropicAnswer): { events: ScriptedEvent[] } {
  const event = (data: { type: string } & Record<string, unknown>): ScriptedEvent => ({ event: data.type, data });
  return {
    events: [
      event({
        type: 'message_start',
        message: {
          ...message(answer, []),
          stop_reason: null,
          usage: { input_tokens: answer.usage.input_tokens, output_tokens: 1 },
        },
      }),
      event({ type: 'ping' }),
      ...answer.content.flatMap((block, index) => [
        event({ type: 'content_block_start', index, content_block: opened(block) }),
        ...deltas(block).map((delta) => event({ type: 'content_block_delta', index, delta })),
        event({ type: 'content_block_stop', index }),
      ]),
      event({
        type: 'message_delta',
        delta: { stop_reason: answer.stopReason, stop_sequence: null },
        usage: { output_tokens: answer.usage.output_tokens },
      }),
      event({ type: 'message_stop' }),
    ],
  };
}

/** The answer in the shape the request asks for: streamed when its body says `stream: true`, as the API does. */
export const anthropicReply =
  (answer: AnthropicAnswer) =>
  (request: ProviderRequest): ScriptedAnswer =>
    request.json?.stream === true ? anthropicEvents(answer) : anthropicMessage(answer);

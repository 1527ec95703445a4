import type { Message, MessagePart, ProviderMetadata, ToolCall, JsonValue } from '../../index.js';
import { fileLabel, filesOf } from '../../kit/index.js';

/** A content block as the Messages API takes it. */
export type AnthropicBlock = { readonly type: string } & { readonly [field: string]: unknown };

export interface AnthropicTurn {
  readonly role: 'user' | 'assistant';
  readonly content: AnthropicBlock[];
}

/** What the history becomes: the request's `system` and `messages`. */
export interface AnthropicConversation {
  readonly system: AnthropicBlock[];
  readonly messages: AnthropicTurn[];
}

type Part<Type extends MessagePart['type']> = Extract<MessagePart, { type: Type }>;

/** Anthropic's own metadata on a message, part or call: `{ anthropic: { cacheControl, redacted } }`. */
const anthropicOf = (carrier: {
  readonly providerMetadata?: ProviderMetadata;
}): { readonly [key: string]: JsonValue } | undefined => carrier.providerMetadata?.['anthropic'];

/** The prompt-caching marker a part or message carries, as the API spells it. */
function cacheControlOf(carrier: { readonly providerMetadata?: ProviderMetadata }): { cache_control?: JsonValue } {
  const marker = anthropicOf(carrier)?.['cacheControl'];
  return marker === undefined ? {} : { cache_control: marker };
}

const textBlock = (text: string, carrier: { readonly providerMetadata?: ProviderMetadata } = {}): AnthropicBlock => ({
  type: 'text',
  text,
  ...cacheControlOf(carrier),
});

function fileBlock(part: Part<'file'>): AnthropicBlock {
  const source =
    part.url !== undefined
      ? { type: 'url', url: part.url }
      : part.mediaType === 'text/plain'
        ? { type: 'text', media_type: 'text/plain', data: Buffer.from(part.data ?? '', 'base64').toString('utf8') }
        : { type: 'base64', media_type: part.mediaType, data: part.data ?? '' };
  return { type: part.mediaType.startsWith('image/') ? 'image' : 'document', source, ...cacheControlOf(part) };
}

/**
 * Thinking goes back exactly as it came: with its signature, or redacted with its data. Reasoning that is not
 * Anthropic's (another provider's, or a summary without a signature) cannot be checked by the API and is left out.
 */
function reasoningBlock(part: Part<'reasoning'>): AnthropicBlock | undefined {
  if (anthropicOf(part)?.['redacted'] === true && part.encryptedContent !== undefined)
    return { type: 'redacted_thinking', data: part.encryptedContent };
  if (part.signature !== undefined) return { type: 'thinking', thinking: part.text, signature: part.signature };
  return undefined;
}

const toolUseBlock = (call: ToolCall): AnthropicBlock => ({
  type: 'tool_use',
  id: call.id,
  name: call.name,
  input: call.args ?? {},
  ...cacheControlOf(call),
});

/** Text parts when the message has them (they may carry cache markers), else its `content`; never an empty block. */
function textBlocks(message: Message): AnthropicBlock[] {
  const texts = (message.parts ?? []).filter((part): part is Part<'text'> => part.type === 'text');
  const sources: readonly { readonly text: string; readonly providerMetadata?: ProviderMetadata }[] =
    texts.length > 0 ? texts : [{ text: message.content }];
  return sources.filter((source) => source.text !== '').map((source) => textBlock(source.text, source));
}

function userBlocks(message: Message): AnthropicBlock[] {
  return [...filesOf(message).map(fileBlock), ...textBlocks(message)];
}

function assistantBlocks(message: Message): AnthropicBlock[] {
  const thinking = (message.parts ?? []).flatMap((part) =>
    part.type === 'reasoning' ? (reasoningBlock(part) ?? []) : [],
  );
  return [...thinking, ...textBlocks(message), ...(message.toolCalls ?? []).map(toolUseBlock)];
}

/**
 * A file in a tool result: images, PDFs and plain text (as data) are blocks the API takes there; any other file is named in
 * text, so the model knows the tool returned one.
 */
function toolFileBlock(part: Part<'file'>): AnthropicBlock {
  const taken =
    part.mediaType.startsWith('image/') ||
    part.mediaType === 'application/pdf' ||
    (part.mediaType === 'text/plain' && part.data !== undefined);
  return taken ? fileBlock(part) : textBlock(fileLabel(part));
}

/**
 * A tool message as a `tool_result`: its text, or with files its text and the files as blocks (the API has no place
 * for a structured output: the text is what the model reads). An error or a denial sets `is_error` (the content says which).
 */
function toolResultBlock(message: Message): AnthropicBlock {
  const result = message.parts?.find((part): part is Part<'tool-result'> => part.type === 'tool-result');
  const files = filesOf(message);
  return {
    type: 'tool_result',
    tool_use_id: message.toolCallId ?? result?.toolCallId,
    content:
      files.length === 0
        ? message.content
        : [...(message.content === '' ? [] : [textBlock(message.content)]), ...files.map(toolFileBlock)],
    ...(result && result.outcome !== 'ok' ? { is_error: true } : {}),
    ...cacheControlOf(result ?? {}),
  };
}

/** A message's blocks, the message's own cache marker on the last one. */
function blocksOf(message: Message): AnthropicBlock[] {
  const blocks =
    message.role === 'assistant'
      ? assistantBlocks(message)
      : message.role === 'tool'
        ? [toolResultBlock(message)]
        : userBlocks(message);
  const marker = cacheControlOf(message);
  const last = blocks.at(-1);
  if (last && marker.cache_control !== undefined) blocks[blocks.length - 1] = { ...last, ...marker };
  return blocks;
}

/**
 * `messages` as the Messages API wants them. Consecutive turns of one role
 * are merged into one (so the parallel tool results of a turn share one user
 * turn, and a user message after them joins it); a message with nothing to
 * send (an empty assistant turn) is left out.
 */
export function toAnthropicConversation(messages: readonly Message[]): AnthropicConversation {
  const system: AnthropicBlock[] = [];
  const turns: AnthropicTurn[] = [];
  for (const message of messages) {
    const blocks = blocksOf(message);
    if (message.role === 'system') {
      system.push(...blocks);
      continue;
    }
    if (blocks.length === 0) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const previous = turns.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return { system, messages: turns };
}

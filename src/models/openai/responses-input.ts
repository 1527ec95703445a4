import type { Message, MessagePart, ModelRequest, ToolCall, ToolSpec } from '../../index.js';
import { dataUrl, type FilePart, filesOf } from '../../kit/index.js';
import { argumentsText } from './tool-arguments.js';

/** How a Responses model builds its requests. */
export interface ResponsesRequestSettings {
  readonly model: string;
  readonly store: boolean;
  readonly encryptedReasoning: boolean;
  readonly previousResponseId: 'off' | 'auto';
  readonly reasoning?: { readonly effort?: string; readonly summary?: string };
  readonly body?: Record<string, unknown>;
}

type Item = Record<string, unknown>;
type ReasoningItem = {
  type: 'reasoning';
  id?: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content?: string;
};
type MessageItem = {
  type: 'message';
  role: 'assistant';
  content: { type: 'output_text'; text: string }[];
  id?: string;
};

/** The OpenAI item id an adapter kept on a part or a call. */
function itemIdOf(carrier: MessagePart | ToolCall): string | undefined {
  const id = carrier.providerMetadata?.['openai']?.['itemId'];
  return typeof id === 'string' ? id : undefined;
}

/** The id of the response an assistant message came from, when this adapter made it. */
export function responseIdOf(message: Message): string | undefined {
  const id = message.providerMetadata?.['openai']?.['responseId'];
  return typeof id === 'string' ? id : undefined;
}

function fileInput(part: FilePart): Item {
  if (part.mediaType.startsWith('image/')) return { type: 'input_image', image_url: part.url ?? dataUrl(part) };
  if (part.url !== undefined) return { type: 'input_file', file_url: part.url };
  return { type: 'input_file', filename: part.filename ?? 'file', file_data: dataUrl(part) };
}

/** A user turn's content: its text parts and files in order, or its `content` first when no part holds the text. */
function userContent(message: Message): Item[] {
  const parts = message.parts ?? [];
  const inputs = parts.flatMap((part): Item[] => {
    if (part.type === 'text') return [{ type: 'input_text', text: part.text }];
    if (part.type === 'file') return [fileInput(part)];
    return [];
  });
  if (parts.some((part) => part.type === 'text') || message.content === '') return inputs;
  return [{ type: 'input_text', text: message.content }, ...inputs];
}

/**
 * An assistant turn as the items the API answered with: consecutive parts of one item (reasoning summaries, output
 * texts) become that item again, with its id and encrypted content; then its function calls. Reasoning that is not
 * OpenAI's (no item id, no encrypted content) is left out, and so is reasoning without encrypted content when the
 * server keeps nothing (store false): the API could not find it.
 */
function assistantItems(message: Message, store: boolean): Item[] {
  const items: (Item | ReasoningItem | MessageItem)[] = [];
  const parts = message.parts ?? [];
  for (const part of parts) {
    const id = itemIdOf(part);
    const last = items.at(-1);
    const sameItem =
      id !== undefined && last?.['id'] === id && last['type'] === (part.type === 'text' ? 'message' : part.type);
    if (part.type === 'reasoning') {
      if (!sameItem && part.encryptedContent === undefined && !(store && id !== undefined)) continue;
      const item = sameItem
        ? (last as ReasoningItem)
        : ({ type: 'reasoning', ...(id === undefined ? {} : { id }), summary: [] } as ReasoningItem);
      if (part.text !== '') item.summary.push({ type: 'summary_text', text: part.text });
      if (part.encryptedContent !== undefined) item.encrypted_content = part.encryptedContent;
      if (!sameItem) items.push(item);
    } else if (part.type === 'text') {
      if (sameItem) (last as MessageItem).content.push({ type: 'output_text', text: part.text });
      else
        items.push({
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: part.text }],
          ...(id === undefined ? {} : { id }),
        });
    }
  }
  if (!parts.some((part) => part.type === 'text') && message.content !== '') {
    items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.content }] });
  }
  for (const call of message.toolCalls ?? []) {
    const id = itemIdOf(call);
    items.push({
      type: 'function_call',
      call_id: call.id,
      name: call.name,
      arguments: argumentsText(call.args),
      ...(id === undefined ? {} : { id }),
    });
  }
  return items;
}

/** A tool message's output: its text, or with files its text and the files as `input_*` content. */
function toolOutput(message: Message): string | Item[] {
  const files = filesOf(message);
  if (files.length === 0) return message.content;
  return [...(message.content === '' ? [] : [{ type: 'input_text', text: message.content }]), ...files.map(fileInput)];
}

function inputItems(message: Message, store: boolean): Item[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'developer', content: message.content }];
    case 'user':
      return [{ role: 'user', content: userContent(message) }];
    case 'assistant':
      return assistantItems(message, store);
    case 'tool':
      // The content already says how the call ended (an error, a denial): the Responses API has no flag for it, and
      // no place for a structured output (the text is what the model reads). Files make the output a content list.
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: toolOutput(message) }];
  }
}

function toolsToWire(tools: readonly ToolSpec[]): Item[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

/** The request body for `request`: the adapter's own fields win over `settings.body`. */
export function responsesRequestBody(
  settings: ResponsesRequestSettings,
  request: Pick<ModelRequest, 'messages' | 'tools'>,
): Record<string, unknown> {
  const { messages } = request;
  const leading = messages.findIndex((message) => message.role !== 'system');
  const systemCount = leading === -1 ? messages.length : leading;
  const instructions = messages
    .slice(0, systemCount)
    .map((message) => message.content)
    .join('\n\n');
  // What the server holds already: everything up to the last assistant turn it answered with.
  const lastAnswered =
    settings.previousResponseId === 'auto'
      ? messages.findLastIndex((message) => message.role === 'assistant' && responseIdOf(message) !== undefined)
      : -1;
  const previousResponseId = lastAnswered === -1 ? undefined : responseIdOf(messages[lastAnswered]!);
  return {
    ...settings.body,
    model: settings.model,
    ...(instructions === '' ? {} : { instructions }),
    input: messages
      .slice(Math.max(systemCount, lastAnswered + 1))
      .flatMap((message) => inputItems(message, settings.store)),
    ...(request.tools.length > 0 ? { tools: toolsToWire(request.tools) } : {}),
    store: settings.store,
    ...(settings.encryptedReasoning ? { include: ['reasoning.encrypted_content'] } : {}),
    ...(previousResponseId === undefined ? {} : { previous_response_id: previousResponseId }),
    ...(settings.reasoning === undefined ? {} : { reasoning: settings.reasoning }),
  };
}

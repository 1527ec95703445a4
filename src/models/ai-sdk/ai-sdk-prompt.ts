// Our conversation as an AI SDK prompt (LanguageModelV3Prompt; v2's is the same but for refused calls, which
// the dialect words). What a provider gave back with a part or a call (an Anthropic signature, an OpenAI item id)
// goes back as that part's providerOptions, unchanged.
import type {
  JSONValue,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { Message, MessagePart, ProviderMetadata, ToolSpec } from '../../index.js';
import { filesOf } from '../../kit/index.js';
import type { SpecDialect } from './spec-versions.js';

type AssistantContent = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'];
type UserContent = Extract<LanguageModelV3Message, { role: 'user' }>['content'];

const withOptions = (metadata: ProviderMetadata | undefined) =>
  metadata ? { providerOptions: metadata as SharedV3ProviderOptions } : {};

/** A file part as the AI SDK takes it: base64 data as a string, a link as a URL. */
function filePart(part: Extract<MessagePart, { type: 'file' }>): UserContent[number] {
  return {
    type: 'file',
    mediaType: part.mediaType,
    data: part.data ?? new URL(part.url ?? ''),
    ...(part.filename === undefined ? {} : { filename: part.filename }),
    ...withOptions(part.providerMetadata),
  };
}

/** The message's parts of the kinds a user or an assistant message carries, with `content` as text when no part is text. */
function contentParts(message: Message): AssistantContent {
  const content: AssistantContent = [];
  for (const part of message.parts ?? []) {
    if (part.type === 'text') content.push({ type: 'text', text: part.text, ...withOptions(part.providerMetadata) });
    else if (part.type === 'file') content.push(filePart(part));
    else if (part.type === 'reasoning' && message.role === 'assistant')
      content.push({ type: 'reasoning', text: part.text, ...withOptions(part.providerMetadata) });
  }
  if (message.content !== '' && !message.parts?.some((part) => part.type === 'text'))
    content.push({ type: 'text', text: message.content });
  return content;
}

/**
 * An assistant message: its parts, then its calls. Its own `providerMetadata` is what the answer as a whole
 * reported (usage details, a response id): kept for the record, not sent back, as the AI SDK does.
 */
function assistantMessage(message: Message): LanguageModelV3Message {
  const calls: AssistantContent = (message.toolCalls ?? []).map((call) => ({
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.name,
    input: call.args,
    ...withOptions(call.providerMetadata),
  }));
  return { role: 'assistant', content: [...contentParts(message), ...calls] };
}

/**
 * How a call ended, from its `tool-result` part; a tool message without one (older runs) ended well. A result with
 * files is `content`: its text, then the files; one with a structured output and no files is that `json`.
 */
function toolOutput(
  message: Message,
  result: Extract<MessagePart, { type: 'tool-result' }> | undefined,
  dialect: SpecDialect,
): LanguageModelV3ToolResultOutput {
  const structured = result?.output as JSONValue | undefined;
  const files = filesOf(message);
  if (files.length > 0 && (result?.outcome ?? 'ok') === 'ok') {
    return {
      type: 'content',
      value: [
        ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
        ...files.map(dialect.file),
      ],
    };
  }
  switch (result?.outcome ?? 'ok') {
    case 'denied':
      return dialect.denied(message.content);
    case 'error':
      return structured === undefined
        ? { type: 'error-text', value: message.content }
        : { type: 'error-json', value: structured };
    default:
      return structured === undefined ? { type: 'text', value: message.content } : { type: 'json', value: structured };
  }
}

function toolResult(
  message: Message,
  toolNames: ReadonlyMap<string, string>,
  dialect: SpecDialect,
): LanguageModelV3ToolResultPart {
  const result = message.parts?.find((part) => part.type === 'tool-result');
  const toolCallId = result?.toolCallId ?? message.toolCallId ?? '';
  return {
    type: 'tool-result',
    toolCallId,
    toolName: result?.toolName ?? toolNames.get(toolCallId) ?? '',
    output: toolOutput(message, result, dialect),
    ...withOptions(result?.providerMetadata),
  };
}

/**
 * `messages` as the prompt an AI SDK model takes. Tool messages that follow each other (the results of one
 * turn's calls) become one tool message, as the AI SDK itself builds them.
 */
export function toPrompt(messages: readonly Message[], dialect: SpecDialect): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content, ...withOptions(message.providerMetadata) });
        break;
      case 'user':
        prompt.push({
          role: 'user',
          content: contentParts(message) as UserContent,
          ...withOptions(message.providerMetadata),
        });
        break;
      case 'assistant':
        for (const call of message.toolCalls ?? []) toolNames.set(call.id, call.name);
        prompt.push(assistantMessage(message));
        break;
      case 'tool': {
        const part = toolResult(message, toolNames, dialect);
        const previous = prompt.at(-1);
        if (previous?.role === 'tool') previous.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}

/** Our tool specs as AI SDK function tools. */
export function toFunctionTools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
  }));
}

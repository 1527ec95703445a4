// The check of a history, from a snapshot or from a caller: one pass over plain objects, no schema machinery,
// because history is the part of a run that grows (a zod parse of 1,000 messages cost more than the rest of a start).
import { isPlainJson } from './plain-json.js';
import type { Message } from './types.js';

/** Says what is wrong at `path` and throws the caller's error. */
export type Fail = (path: string, what: string) => never;

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
const OUTCOMES = new Set(['ok', 'error', 'denied']);
const FINISH_REASONS = new Set(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']);

const isString = (value: unknown): value is string => typeof value === 'string';
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkMetadata(value: unknown, path: string, fail: Fail): void {
  if (value === undefined) return;
  if (!isRecord(value) || !isPlainJson(value)) fail(path, 'must be plain JSON keyed by provider');
  for (const key in value as Record<string, unknown>) if (!isRecord((value as Record<string, unknown>)[key])) fail(`${path}.${key}`, 'must be an object');
}

function checkPart(part: unknown, path: string, fail: Fail): void {
  if (!isRecord(part)) fail(path, 'must be an object');
  switch (part['type']) {
    case 'text':
      if (!isString(part['text'])) fail(`${path}.text`, 'must be a string');
      break;
    case 'reasoning':
      if (!isString(part['text'])) fail(`${path}.text`, 'must be a string');
      if (!optionalString(part['signature'])) fail(`${path}.signature`, 'must be a string');
      if (!optionalString(part['encryptedContent'])) fail(`${path}.encryptedContent`, 'must be a string');
      break;
    case 'file':
      if (!isString(part['mediaType']) || part['mediaType'] === '') fail(`${path}.mediaType`, 'must be a media type such as image/png');
      if (!optionalString(part['data']) || !optionalString(part['url']) || (part['data'] === undefined) === (part['url'] === undefined)) {
        fail(path, 'a file part has either data (base64) or a url');
      }
      if (!optionalString(part['filename'])) fail(`${path}.filename`, 'must be a string');
      break;
    case 'tool-result':
      if (!isString(part['toolCallId']) || !isString(part['toolName'])) fail(path, 'a tool-result part has a toolCallId and a toolName');
      if (!OUTCOMES.has(part['outcome'] as string)) fail(`${path}.outcome`, 'must be ok, error or denied');
      if (part['output'] !== undefined && !isPlainJson(part['output'])) fail(`${path}.output`, 'must be plain JSON');
      break;
    default:
      fail(`${path}.type`, 'must be text, reasoning, file or tool-result');
  }
  checkMetadata(part['providerMetadata'], `${path}.providerMetadata`, fail);
}

/** Checks that `messages` is a history countersign can keep; calls `fail` with the first problem. */
export function checkMessageList(messages: unknown, pathPrefix: string, fail: Fail): asserts messages is Message[] {
  if (!Array.isArray(messages)) fail(pathPrefix, 'must be an array of messages');
  const list = messages as unknown[];
  // An index loop: no iterator or key list per message.
  for (let index = 0; index < list.length; index++) {
    const message = list[index];
    const path = `${pathPrefix}[${index}]`;
    if (!isRecord(message)) return fail(path, 'must be an object');
    const { role, content, toolCalls, toolCallId, parts, usage, finishReason, providerMetadata } = message;
    if (!isString(role) || !ROLES.has(role)) fail(`${path}.role`, 'must be system, user, assistant or tool');
    if (!isString(content)) fail(`${path}.content`, 'must be a string');
    if (!optionalString(toolCallId)) fail(`${path}.toolCallId`, 'must be a string');
    if (parts !== undefined) {
      if (!Array.isArray(parts)) return fail(`${path}.parts`, 'must be an array');
      for (let partIndex = 0; partIndex < parts.length; partIndex++) checkPart(parts[partIndex], `${path}.parts[${partIndex}]`, fail);
    }
    if (toolCalls !== undefined) {
      if (!Array.isArray(toolCalls)) return fail(`${path}.toolCalls`, 'must be an array');
      for (let callIndex = 0; callIndex < toolCalls.length; callIndex++) {
        const call = toolCalls[callIndex] as Record<string, unknown> | null | undefined;
        if (!isString(call?.['id']) || !isString(call?.['name'])) fail(`${path}.toolCalls[${callIndex}]`, 'must have string id and name');
        checkMetadata(call?.['providerMetadata'], `${path}.toolCalls[${callIndex}].providerMetadata`, fail);
      }
    }
    if (usage !== undefined && (!isRecord(usage) || !Object.values(usage).every((count) => typeof count === 'number' && count >= 0))) {
      fail(`${path}.usage`, 'must hold token counts');
    }
    if (finishReason !== undefined && !FINISH_REASONS.has(finishReason as string)) fail(`${path}.finishReason`, 'must be stop, length, tool-calls, content-filter, error or other');
    checkMetadata(providerMetadata, `${path}.providerMetadata`, fail);
  }
}

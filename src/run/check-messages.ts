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
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Says what is wrong at the message `index`, `suffix` inside it: paths are only built for a failure, not for every message checked. */
type FailAt = (index: number, suffix: string, what: string) => never;

function checkMetadata(value: unknown, index: number, suffix: string, failAt: FailAt): void {
  if (!isRecord(value) || !isPlainJson(value)) failAt(index, suffix, 'must be plain JSON keyed by provider');
  for (const key in value as Record<string, unknown>)
    if (!isRecord((value as Record<string, unknown>)[key])) failAt(index, `${suffix}.${key}`, 'must be an object');
}

function checkPart(part: unknown, index: number, partIndex: number, failAt: FailAt): void {
  if (!isRecord(part)) failAt(index, `.parts[${partIndex}]`, 'must be an object');
  const record = part as Record<string, unknown>;
  switch (record['type']) {
    case 'text':
      if (!isString(record['text'])) failAt(index, `.parts[${partIndex}].text`, 'must be a string');
      break;
    case 'reasoning':
      if (!isString(record['text'])) failAt(index, `.parts[${partIndex}].text`, 'must be a string');
      if (!optionalString(record['signature'])) failAt(index, `.parts[${partIndex}].signature`, 'must be a string');
      if (!optionalString(record['encryptedContent']))
        failAt(index, `.parts[${partIndex}].encryptedContent`, 'must be a string');
      break;
    case 'file':
      if (!isString(record['mediaType']) || record['mediaType'] === '')
        failAt(index, `.parts[${partIndex}].mediaType`, 'must be a media type such as image/png');
      if (
        !optionalString(record['data']) ||
        !optionalString(record['url']) ||
        (record['data'] === undefined) === (record['url'] === undefined)
      ) {
        failAt(index, `.parts[${partIndex}]`, 'a file part has either data (base64) or a url');
      }
      if (!optionalString(record['filename'])) failAt(index, `.parts[${partIndex}].filename`, 'must be a string');
      break;
    case 'tool-result':
      if (!isString(record['toolCallId']) || !isString(record['toolName']))
        failAt(index, `.parts[${partIndex}]`, 'a tool-result part has a toolCallId and a toolName');
      if (!OUTCOMES.has(record['outcome'] as string))
        failAt(index, `.parts[${partIndex}].outcome`, 'must be ok, error or denied');
      if (record['output'] !== undefined && !isPlainJson(record['output']))
        failAt(index, `.parts[${partIndex}].output`, 'must be plain JSON');
      break;
    default:
      failAt(index, `.parts[${partIndex}].type`, 'must be text, reasoning, file or tool-result');
  }
  if (record['providerMetadata'] !== undefined)
    checkMetadata(record['providerMetadata'], index, `.parts[${partIndex}].providerMetadata`, failAt);
}

const hasTokenCounts = (usage: unknown): boolean =>
  isRecord(usage) && Object.values(usage).every((count) => typeof count === 'number' && count >= 0);

/** Checks that `messages` is a history countersign can keep; calls `fail` with the first problem. */
export function checkMessageList(messages: unknown, pathPrefix: string, fail: Fail): asserts messages is Message[] {
  if (!Array.isArray(messages)) fail(pathPrefix, 'must be an array of messages');
  const failAt: FailAt = (index, suffix, what) => fail(`${pathPrefix}[${index}]${suffix}`, what);
  const list = messages as unknown[];
  // An index loop: no iterator or key list per message.
  for (let index = 0; index < list.length; index++) {
    const message = list[index];
    if (!isRecord(message)) return failAt(index, '', 'must be an object');
    const { role, content, toolCalls, toolCallId, parts, usage, finishReason, providerMetadata } = message;
    if (!isString(role) || !ROLES.has(role)) failAt(index, '.role', 'must be system, user, assistant or tool');
    if (!isString(content)) failAt(index, '.content', 'must be a string');
    if (!optionalString(toolCallId)) failAt(index, '.toolCallId', 'must be a string');
    if (parts !== undefined) {
      if (!Array.isArray(parts)) return failAt(index, '.parts', 'must be an array');
      for (let partIndex = 0; partIndex < parts.length; partIndex++)
        checkPart(parts[partIndex], index, partIndex, failAt);
    }
    if (toolCalls !== undefined) {
      if (!Array.isArray(toolCalls)) return failAt(index, '.toolCalls', 'must be an array');
      for (let callIndex = 0; callIndex < toolCalls.length; callIndex++) {
        const call = toolCalls[callIndex] as Record<string, unknown> | null | undefined;
        if (!isString(call?.['id']) || !isString(call?.['name']))
          failAt(index, `.toolCalls[${callIndex}]`, 'must have string id and name');
        if (call?.['providerMetadata'] !== undefined)
          checkMetadata(call['providerMetadata'], index, `.toolCalls[${callIndex}].providerMetadata`, failAt);
      }
    }
    if (usage !== undefined && !hasTokenCounts(usage)) failAt(index, '.usage', 'must hold token counts');
    if (finishReason !== undefined && !FINISH_REASONS.has(finishReason as string))
      failAt(index, '.finishReason', 'must be stop, length, tool-calls, content-filter, error or other');
    if (providerMetadata !== undefined) checkMetadata(providerMetadata, index, '.providerMetadata', failAt);
  }
}

import { z } from 'zod';
import { parseOptions } from '../options.js';
import { filePartSchema } from '../run/message-schema.js';
import { isPlainJson } from '../run/plain-json.js';
import type { MessagePart } from '../run/types.js';
import type { JsonValue } from '../run/json-value.js';

/** A file (an image, a document) a tool hands back beside its text. */
export type ToolResultFile = Omit<Extract<MessagePart, { type: 'file' }>, 'type' | 'providerMetadata'>;

/** What a tool returns to give the model more than text: files it can look at, and a structured output. */
export interface RichToolResult {
  /** What the model reads. */
  readonly text: string;
  readonly files?: readonly ToolResultFile[];
  /** A structured result (plain JSON), for providers that take one; the model still reads `text`. */
  readonly structured?: JsonValue;
}

/** What a finished call keeps besides its text: file parts and the structured output. */
export interface ToolResultExtras {
  readonly files?: readonly Extract<MessagePart, { type: 'file' }>[];
  readonly output?: JsonValue;
}

/** The extras of a result `toolResult` made, kept under a symbol so no plain object passes for one. */
const extrasKey = Symbol('countersign.toolResult');

const richSchema = z.strictObject({
  text: z.string(),
  files: z.array(z.unknown()).optional(),
  structured: z.custom<JsonValue>(isPlainJson, 'must be plain JSON').optional(),
});

/**
 * Marks a tool's return value as a result with files or a structured output,
 * which the tool's message to the model carries as parts (a plain return
 * value becomes text, as always).
 *
 * @example
 * execute: async ({ url }) => toolResult({ text: `Screenshot of ${url}`, files: [{ mediaType: 'image/png', data: png.toString('base64') }] }),
 */
export function toolResult(result: RichToolResult): RichToolResult {
  parseOptions(richSchema, result, 'toolResult', { subject: 'result' });
  const files = (result.files ?? []).map(
    (file, index) =>
      parseOptions(filePartSchema, { ...file, type: 'file' }, 'toolResult', {
        subject: `files.${index}`,
        hint: 'Give { mediaType, data } (base64) or { mediaType, url }.',
      }) as Extract<MessagePart, { type: 'file' }>,
  );
  const extras: ToolResultExtras = {
    ...(files.length > 0 ? { files } : {}),
    ...(result.structured === undefined ? {} : { output: result.structured }),
  };
  return Object.freeze({ ...result, [extrasKey]: extras });
}

/** The text and extras of a value `toolResult` made; undefined for any other value. */
export function richResultOf(value: unknown): { readonly text: string; readonly extras: ToolResultExtras } | undefined {
  if (typeof value !== 'object' || value === null || !(extrasKey in value)) return undefined;
  const rich = value as RichToolResult & { readonly [extrasKey]: ToolResultExtras };
  return { text: rich.text, extras: rich[extrasKey] };
}

// What a message may hold, checked where one comes in: a model's answer, a history handed to execute.
import { z } from 'zod';
import { isPlainJson } from './plain-json.js';
import type { JsonValue } from './json-value.js';

// One walk of our own rather than z.json(): a recursive zod schema tracks cycles on every visit, which made checking a
// history with parts several times slower than the history itself.
export const jsonSchema = z.custom<JsonValue>(
  isPlainJson,
  'must be plain JSON (strings, finite numbers, booleans, null, arrays and plain objects)',
);
const metadataSchema = z.record(z.string(), z.record(z.string(), jsonSchema));
const withMetadata = { providerMetadata: metadataSchema.optional() };

export const filePartSchema = z
  .object({
    type: z.literal('file'),
    mediaType: z.string().min(1),
    data: z.string().optional(),
    url: z.string().optional(),
    filename: z.string().optional(),
    ...withMetadata,
  })
  .refine(
    (part) => (part.data === undefined) !== (part.url === undefined),
    'a file part has either data (base64) or a url',
  );

export const partSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), ...withMetadata }),
  z.object({
    type: z.literal('reasoning'),
    text: z.string(),
    signature: z.string().optional(),
    encryptedContent: z.string().optional(),
    ...withMetadata,
  }),
  filePartSchema,
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    outcome: z.enum(['ok', 'error', 'denied']),
    output: jsonSchema.optional(),
    ...withMetadata,
  }),
]);

const toolCallSchema = z.object({ id: z.string().min(1), name: z.string().min(1), args: z.unknown(), ...withMetadata });
const usageSchema = z.object({
  inputTokens: z.number().nonnegative().optional(),
  outputTokens: z.number().nonnegative().optional(),
  reasoningTokens: z.number().nonnegative().optional(),
  cachedInputTokens: z.number().nonnegative().optional(),
});

export const messageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  parts: z.array(partSchema).optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  toolCallId: z.string().optional(),
  usage: usageSchema.optional(),
  finishReason: z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']).optional(),
  ...withMetadata,
});

export const assistantSchema = messageSchema.extend({ role: z.literal('assistant') });
export { usageSchema };

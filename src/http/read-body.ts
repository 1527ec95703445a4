import type { z } from 'zod';
import { HttpProblem, problem } from './problem.js';

/** Object keys refused anywhere in a body: they only ever serve prototype pollution. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Deeper bodies are refused before anything recurses over them. */
export const MAX_JSON_DEPTH = 64;

/**
 * The 413 `body_too_large` problem.
 *
 * @example
 * throw tooLarge(65_536);
 */
export function tooLarge(maxBytes: number): HttpProblem {
  return new HttpProblem(problem(413, 'body_too_large', `The body is larger than ${maxBytes} bytes; send at most ${maxBytes}.`, { maxBytes }));
}

/**
 * Reads a request body as UTF-8 text, at most `maxBytes` of it: a longer
 * body (whatever its content-length says) is refused with 413 as soon as the
 * limit is crossed, without reading the rest. A body cut off mid-way (the
 * client hung up) is a 400 `body_aborted`, a client error, not a 500.
 *
 * @example
 * const raw = await readRawBody(c.req.raw, 64 * 1024);
 */
export async function readRawBody(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      // The only way a request body fails mid-read is the client going away (or the server's request timeout): the client's doing.
      throw new HttpProblem(problem(400, 'body_aborted', 'The request body ended before it was complete (the connection closed); send the whole request again.'));
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    // ignoreBOM keeps a leading BOM in the text, so the signature is checked over exactly the bytes that were signed.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new HttpProblem(problem(400, 'invalid_body', 'The body is not valid UTF-8.'));
  }
}

function checkShape(value: unknown): string | undefined {
  // Iterative, so a hostile nesting depth cannot overflow the stack here.
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth >= MAX_JSON_DEPTH) return `nests deeper than ${MAX_JSON_DEPTH} levels at ${item.path || '(root)'}`;
    for (const key of Object.keys(item.value)) {
      if (FORBIDDEN_KEYS.has(key)) return `has the key "${key}" at ${item.path || '(root)'}; it is refused anywhere in a body`;
      stack.push({ value: (item.value as Record<string, unknown>)[key], depth: item.depth + 1, path: item.path ? `${item.path}.${key}` : key });
    }
  }
  return undefined;
}

/**
 * Parses a JSON body and validates it with `schema`: not JSON, too deep,
 * carrying `__proto__`, `constructor` or `prototype` keys, or not matching
 * the schema is a 400 `invalid_body` problem with the issues. An empty body
 * is read as `{}`.
 *
 * @example
 * const decision = parseJsonBody(decisionBody, '{"approved":true}'); // { approved: true }
 */
export function parseJsonBody<S extends z.ZodType>(schema: S, raw: string): z.output<S> {
  let value: unknown;
  if (raw.trim() === '') value = {};
  else {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new HttpProblem(problem(400, 'invalid_body', 'The body is not valid JSON.'));
    }
  }
  const refused = checkShape(value);
  if (refused) throw new HttpProblem(problem(400, 'invalid_body', `The body ${refused}.`));
  return parseWith(schema, value, 'body');
}

/**
 * Validates a value (body or query) with zod; a mismatch is a 400 `invalid_body` / `invalid_query` problem.
 *
 * @example
 * const query = parseWith(pendingQuery, c.req.query(), 'query');
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: 'body' | 'query'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 20).map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  const first = issues[0]!;
  throw new HttpProblem(
    problem(400, what === 'body' ? 'invalid_body' : 'invalid_query', `The ${what} is invalid: ${first.path || '(root)'}: ${first.message}.`, { issues }),
  );
}

import type { z } from 'zod';
import { describeShapeProblem, findShapeProblem } from '../../run/argument-shape.js';
import { HttpProblem } from '../../errors/http.js';
import { problem } from './problem.js';

export { MAX_JSON_DEPTH } from '../../run/argument-shape.js';

/**
 * The 413 `body_too_large` problem.
 *
 * @example
 * throw tooLarge(65_536);
 */
export function tooLarge(maxBytes: number): HttpProblem {
  return new HttpProblem(
    problem(413, 'body_too_large', `The body is larger than ${maxBytes} bytes; send at most ${maxBytes}.`, {
      maxBytes,
    }),
  );
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
      throw new HttpProblem(
        problem(
          400,
          'body_aborted',
          'The request body ended before it was complete (the connection closed); send the whole request again.',
        ),
      );
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
  const refused = findShapeProblem(value);
  if (refused) {
    const why =
      describeShapeProblem(refused) + (refused.kind === 'forbidden-key' ? '; it is refused anywhere in a body' : '');
    throw new HttpProblem(problem(400, 'invalid_body', `The body ${why}.`));
  }
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
  const issues = parsed.error.issues
    .slice(0, 20)
    .map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  const first = issues[0]!;
  throw new HttpProblem(
    problem(
      400,
      what === 'body' ? 'invalid_body' : 'invalid_query',
      `The ${what} is invalid: ${first.path || '(root)'}: ${first.message}.`,
      { issues },
    ),
  );
}

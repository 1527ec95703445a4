import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';

/**
 * Answers with `value` as JSON, like `c.json`, and keeps the text in `answerText`, so the webhook-id claim stores
 * it as the delivery's answer without cloning and reading back the response (which costs the Node adapter its
 * fast path).
 */
export function answerJson(
  c: Context<AppEnv>,
  value: unknown,
  status: 200 | 201 | 202 = 200,
  headers?: Record<string, string>,
): Response {
  const text = JSON.stringify(value);
  c.set('answerText', text);
  return c.body(text, status, { 'content-type': 'application/json', ...headers });
}

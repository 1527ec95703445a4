import type { JsonSchema } from './schema-check.js';

/**
 * A refusal from the server, with its problem `detail` as the message. The one error class outside src/errors/: this
 * folder is a browser module graph, served file by file from src/console/, so it cannot import from there.
 */
export class ConsoleRequestError extends Error {
  override readonly name = 'ConsoleRequestError';
  /** On a refused answer (`invalid_answer`): the problem of each field. */
  readonly issues: readonly { readonly path: string; readonly message: string }[];

  constructor(message: string, issues: ConsoleRequestError['issues'] = []) {
    super(message);
    this.issues = issues;
  }
}

const csrf = () => document.querySelector<HTMLElement>('main[data-csrf]')?.dataset['csrf'] ?? '';

/**
 * Posts a console write as JSON with the session's CSRF token; resolves with the answer, or rejects with the
 * problem's detail.
 *
 * @example
 * await postJson('console/decide', { runId, approvalId, decision: 'approve' });
 */
export async function postJson(
  path: string,
  body: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf() },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok)
    throw new ConsoleRequestError(
      typeof answer['detail'] === 'string' ? answer['detail'] : `The server answered ${response.status}.`,
      Array.isArray(answer['issues']) ? (answer['issues'] as ConsoleRequestError['issues']) : [],
    );
  return answer;
}

const schemas = new Map<string, Promise<ReadonlyMap<string, JsonSchema>>>();

/**
 * The input schema of an agent's tool (read once per agent from `GET /agents/:agent/tools`), or undefined when the
 * server does not list it.
 *
 * @example
 * const schema = await toolSchema('files', 'delete_file');
 */
export async function toolSchema(agent: string, tool: string): Promise<JsonSchema | undefined> {
  let tools = schemas.get(agent);
  if (tools === undefined) {
    tools = fetch(`agents/${encodeURIComponent(agent)}/tools`, {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    })
      .then((response) => (response.ok ? response.json() : { tools: [] }))
      .then(
        (body: { tools: { name: string; parameters: JsonSchema }[] }) =>
          new Map(body.tools.map((spec) => [spec.name, spec.parameters])),
      );
    schemas.set(agent, tools);
  }
  return (await tools).get(tool);
}

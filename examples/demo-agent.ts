// The agent `npm start` serves: a scripted model (no provider, no network) that
// looks around a sandbox folder and a docs site, then asks to fetch a page from
// a domain off the allowlist and to write a summary, and waits for a person.
import { createAgent, type Agent, type AssistantMessage, type ModelRequest } from 'countersign';
import { createScriptedModel, lastToolResults, textTurn, toolCallTurn } from 'countersign/testing';
import type { FetchPage } from './web-fetch-tools.js';
import { sandboxFileTools } from './sandbox-files.js';
import { webFetchTools } from './web-fetch-tools.js';

/** The pages the demo's loopback server holds (see demo-sites.ts). */
export const demoPages = {
  'docs.example.com/changelog': 'v0.1.0: first release. Tools ask a person before they run.',
  'status.example.net/': 'All systems operational.',
} as const;

/** The one request the demo run starts with. */
export const demoInput = 'Summarise the sandbox and the release status into notes/summary.md';

const isDenied = (result: unknown) => (result as { status?: unknown } | null)?.status === 'denied';

/** Each turn from how far the conversation has got, so a run resumed in another process gets the same answers. */
function demoTurn({ messages }: ModelRequest): AssistantMessage {
  const turns = messages.filter((message) => message.role === 'assistant').length;
  if (turns === 0) {
    return toolCallTurn(
      [
        { name: 'list_files', args: {} },
        { name: 'read_file', args: { path: 'todo.md' } },
        { name: 'fetch_url', args: { url: 'https://docs.example.com/changelog' } },
      ],
      undefined,
      'I will look at the sandbox and the changelog first (these need nobody).',
    );
  }
  if (turns === 1) {
    return toolCallTurn(
      [
        { name: 'fetch_url', args: { url: 'https://status.example.net/' } },
        {
          name: 'write_file',
          args: {
            path: 'notes/summary.md',
            text: '# Summary\n\n- todo.md: ship the demo\n- changelog: v0.1.0, first release\n',
          },
        },
      ],
      undefined,
      'Now the status page (off the allowlist) and the summary (a write): both need your approval.',
    );
  }
  const denied = lastToolResults(messages).filter(isDenied).length;
  return textTurn(
    denied === 0
      ? 'Done: notes/summary.md is written and the status page was read.'
      : `Done, without the ${denied} call(s) you denied.`,
  );
}

/** The demo agent over a sandbox folder and an allowlist shared with its add_domain tool. */
export function demoAgent(options: {
  readonly sandbox: string;
  readonly allowlist: Set<string>;
  readonly fetchPage: FetchPage;
  readonly decisionSecret: string;
}): Agent {
  return createAgent({
    name: 'demo',
    model: createScriptedModel(demoTurn),
    tools: [...sandboxFileTools(options.sandbox), ...webFetchTools(options.allowlist, options.fetchPage)],
    approvalTtlMs: 24 * 60 * 60 * 1000,
    decisionSecret: options.decisionSecret,
  });
}

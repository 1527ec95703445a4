// A chat agent behind countersign/ui on a real socket: a scripted (streaming) model that asks for the calls a user
// message lists as JSON (`[{ name, args }, ...]`, or plain text for a text answer), gated tools whose executions
// are counted, and the handlers served by Node.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { z } from 'zod';
import { createMemoryStore, createRuntime, defineTool, type Runtime } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { createAgUiHandler, createUIChatHandler, type AgUiHandler, type UIChatHandler } from 'countersign/ui';
import { testAgent } from './test-kit.js';

export interface ChatWorld {
  readonly runtime: Runtime;
  readonly agentName: string;
  readonly chat: UIChatHandler;
  readonly agUi: AgUiHandler;
  /** Base URL of the served handlers: `${url}/api/chat` (useChat's default), `${url}/api/ag-ui`. */
  readonly url: string;
  /** Paths deleted, in order (each execution of `delete_file`). */
  readonly deleted: string[];
  close(): Promise<void>;
}

export interface ChatWorldOptions {
  readonly decisionSecret?: string;
  readonly approvalTtlMs?: number;
  readonly clock?: () => number;
  /** More handlers to serve, by path prefix. */
  readonly routes?: (runtime: Runtime, agentName: string) => Record<string, (request: Request) => Promise<Response>>;
}

/** Who the request says it is: the `x-user` header (the app's own authentication, in a test). */
export const userOf = (request: Request) => request.headers.get('x-user') ?? undefined;

export async function chatWorld(options: ChatWorldOptions = {}): Promise<ChatWorld> {
  const deleted: string[] = [];
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1), token: z.string().optional() }),
    needsApproval: true,
    approvalPrompt: ({ path }) => `Delete ${path}?`,
    execute: ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const model = createScriptedModel(
    ({ messages }) => {
      const last = messages.at(-1)!;
      if (last.role === 'tool') return textTurn(`Done: ${last.content}`);
      try {
        return toolCallTurn(JSON.parse(last.content), undefined, 'On it.');
      } catch {
        return textTurn(`You said: ${last.content}`);
      }
    },
    { stream: true },
  );
  const agent = testAgent({
    model,
    tools: [deleteFile],
    ...(options.decisionSecret === undefined ? {} : { decisionSecret: options.decisionSecret }),
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const runtime = createRuntime({
    agents: [agent],
    store: createMemoryStore(),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const chat = createUIChatHandler(runtime, { agent: agent.name, identify: userOf, recheckMs: 60_000 });
  const agUi = createAgUiHandler(runtime, { agent: agent.name, identify: userOf, recheckMs: 60_000 });
  const routes: Record<string, (request: Request) => Promise<Response>> = {
    '/api/chat': chat.fetch,
    '/api/ag-ui': agUi.fetch,
    ...options.routes?.(runtime, agent.name),
  };
  const server: Server = createServer(
    getRequestListener(async (request) => {
      const path = new URL(request.url).pathname;
      const route = Object.entries(routes).find(([prefix]) => path.startsWith(prefix));
      return route === undefined ? new Response('not found', { status: 404 }) : route[1](request);
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    runtime,
    agentName: agent.name,
    chat,
    agUi,
    url,
    deleted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Shared setup of the HTTP tests: an agent whose one tool needs approval, a runtime, an app, and signing helpers.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import {
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  type DecisionKind,
  type Message,
  type QuorumOptions,
  type RequestOptions,
  type ResumeQueue,
  type RunEvent,
  type LinkedRuntime,
  type SnapshotStore,
} from 'countersign';
import { createApprovalApp, type ApprovalAppOptions } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export const TOKEN = 'test-bearer-token-0123456789';
export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Webhook timestamps are checked against this clock, so tests never sleep. */
export const NOW_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
export const LINK_SECRET = 'link-secret-0123456789abcdef';

export interface Harness {
  readonly runtime: LinkedRuntime;
  readonly store: SnapshotStore;
  readonly app: ReturnType<typeof createApprovalApp>;
  /** Paths the tool ran with, in order. */
  readonly executed: string[];
  readonly modelCalls: () => number;
  readonly errors: unknown[];
  /** Releases tool executions held by `holdTool`. */
  release(): void;
}

export interface HarnessOptions {
  readonly app?: ApprovalAppOptions;
  readonly store?: SnapshotStore;
  /** The runtime's resume queue (for `resumeMode: 'enqueue'`). */
  readonly queue?: ResumeQueue;
  /** The tool waits until `release()` is called. */
  readonly holdTool?: boolean;
  readonly approvers?: readonly string[];
  /** The tool needs several approvals (`defineTool`'s `approvals`). */
  readonly approvals?: QuorumOptions;
  /** The decisions a person may make on the tool's calls (`defineTool`'s `decisions`). */
  readonly decisions?: readonly DecisionKind[];
  readonly decisionSecret?: string;
  readonly approvalTtlMs?: number;
  readonly clock?: () => number;
  readonly agentName?: string;
  /** The model streams its turns (`createScriptedModel(script, { stream: true })`). */
  readonly stream?: boolean;
  /** The runtime's request policy (`createRuntime({ requests })`), for `POST /approvals`. */
  readonly requests?: RequestOptions;
}

/** The model asks to delete the path of the user's message once per user message, then says it is done. */
export function deleteScript(request: { messages: readonly Message[] }) {
  const last = request.messages.at(-1)!;
  if (last.role === 'tool') return textTurn(`done: ${last.content}`);
  const paths = last.content.split(' ').filter(Boolean);
  return toolCallTurn(paths.map((path) => ({ name: 'delete_file', args: { path, apiKey: 'sk-secret-value' } })));
}

export function harness(options: HarnessOptions = {}): Harness {
  const executed: string[] = [];
  const errors: unknown[] = [];
  let releaseAll: () => void = () => undefined;
  let gate = options.holdTool ? new Promise<void>((resolve) => (releaseAll = resolve)) : Promise.resolve();
  const model = createScriptedModel(deleteScript, { stream: options.stream ?? false });
  const tool = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1), apiKey: z.string().optional() }),
    needsApproval: true,
    ...(options.approvers ? { approvers: [...options.approvers] } : {}),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.decisions ? { decisions: options.decisions } : {}),
    execute: async (input) => {
      await gate;
      executed.push(input.path);
      return { deleted: input.path };
    },
  });
  const agent = createAgent({
    name: options.agentName ?? 'files',
    model,
    tools: [tool],
    ...(options.decisionSecret ? { decisionSecret: options.decisionSecret } : {}),
    ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const store = options.store ?? createMemoryStore();
  const runtime = createRuntime({
    agents: [agent],
    store,
    links: { secret: LINK_SECRET },
    ...(options.queue ? { queue: options.queue } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.requests ? { requests: options.requests } : {}),
    onError: (error) => errors.push(error),
  });
  const app = createApprovalApp(runtime, {
    bearerToken: TOKEN,
    webhookSecret: SECRET,
    clock: () => NOW_MS,
    onError: (error) => errors.push(error),
    ...options.app,
  });
  return {
    runtime,
    store,
    app,
    executed,
    errors,
    modelCalls: () => model.calls.length,
    release: () => {
      gate = Promise.resolve();
      releaseAll();
    },
  };
}

export const bearer = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

/** Headers a Standard Webhooks sender (the standardwebhooks library) puts on `body`. */
export function signed(
  body: string,
  options: { id?: string; at?: number; secret?: string } = {},
): Record<string, string> {
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? NOW_MS;
  const signature = new Webhook(options.secret ?? SECRET).sign(id, new Date(at), body);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': signature,
  };
}

export const json = (body: unknown, headers: Record<string, string> = bearer()) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** Starts a run on the app and returns the pending approval. */
export async function startPaused(
  h: Harness,
  input = '/tmp/x',
): Promise<{ runId: string; approvalId: string; signature: string | undefined }> {
  const res = await h.app.request('/runs', json({ agent: 'files', input }));
  if (res.status !== 201) throw new Error(`start answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as {
    run: { runId: string; pendingApprovals: { approvalId: string; signature?: string }[] };
  };
  return {
    runId: body.run.runId,
    approvalId: body.run.pendingApprovals[0]!.approvalId,
    signature: body.run.pendingApprovals[0]!.signature,
  };
}

/** Everything a store holds about a run, as JSON, to prove a request changed nothing. */
export async function stateOf(h: Harness, runId: string): Promise<string> {
  return JSON.stringify(await h.store.load(runId));
}

export type { RunEvent };

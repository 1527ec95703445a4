// Shared by the suites of the request routes (POST /approvals, GET /approvals/:requestId, its cancel): the approval
// app served on a real loopback socket, and answers read whole.
import { afterEach } from 'vitest';
import type { SnapshotStore } from 'countersign';
import { serve, type ServeHandle } from 'countersign/http';
import { bearer, harness, type Harness, type HarnessOptions } from './harness.js';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** The JSON answer (problem details included), read by the assertions. */
  readonly body: any;
}

/** Sends a request and reads its JSON answer (problem details included). */
export async function send(url: string, init: RequestInit = { headers: bearer() }): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** Servers started by `served`, closed after each test of the suite that calls `closeServedAfterEach`. */
const servers: ServeHandle[] = [];

export function closeServedAfterEach(): void {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
}

/** The harness's app (webhook timestamps on the real clock) on a free loopback port. */
export async function served(options: HarnessOptions = {}): Promise<{ h: Harness; base: string }> {
  const h = harness({ ...options, app: { clock: Date.now, ...options.app } });
  return { h, base: await serveApp(h.app) };
}

/** Serves `app` on a free loopback port until the test ends; resolves with its base URL. */
export async function serveApp(app: Harness['app']): Promise<string> {
  const server = await serve(app, { port: 0 });
  servers.push(server);
  return server.url;
}

/** Asks for approval over HTTP (bearer token) and returns the 201 answer's state. */
export async function ask(base: string, body: object, headers: Record<string, string> = {}) {
  const answer = await send(`${base}/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(), ...headers },
    body: JSON.stringify(body),
  });
  if (answer.status !== 201)
    throw new Error(`POST /approvals answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer;
}

/** `store`, counting the loads of each run, so a test can tell a long-poll has read its request and is waiting. */
export function countingLoads<S extends SnapshotStore>(store: S): { store: S; loadsOf: (runId: string) => number } {
  const loads = new Map<string, number>();
  return {
    store: {
      ...store,
      load: (runId: string) => {
        loads.set(runId, (loads.get(runId) ?? 0) + 1);
        return store.load(runId);
      },
    },
    loadsOf: (runId) => loads.get(runId) ?? 0,
  };
}

// The approval app of a runtime on a Redis (keys under a prefix), served on a loopback socket, with the calls a
// person's browser or script makes: list the pending approvals (until one shows), decide one.
import type { PendingApprovalEntry } from 'countersign';
import { createRuntime } from 'countersign';
import { createApprovalApp, serve } from 'countersign/http';
import { createRedisStore } from 'countersign/redis';
import type { Redis } from 'ioredis';
import { vi } from 'vitest';

export const APP_TOKEN = 'claude-code-approvals-token-0123456789';

export interface ServedApp {
  readonly url: string;
  /** The first pending approval the app lists for `toolName`, once it lists one (within `timeoutMs`). */
  nextPending(toolName: string, timeoutMs?: number): Promise<PendingApprovalEntry>;
  /** POST /runs/:runId/approvals/:approvalId with `body`; resolves with the status. */
  decide(entry: PendingApprovalEntry, body: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function serveApprovalApp(redis: Redis, prefix: string): Promise<ServedApp> {
  const runtime = createRuntime({ store: createRedisStore({ redis, prefix }) });
  const server = await serve(createApprovalApp(runtime, { bearerToken: APP_TOKEN }), { port: 0 });
  const headers = { authorization: `Bearer ${APP_TOKEN}`, 'content-type': 'application/json' };
  const listed = async (toolName: string) => {
    const page = (await (await fetch(`${server.url}/approvals`, { headers })).json()) as {
      items: PendingApprovalEntry[];
    };
    return page.items.find((item) => item.request.toolName === toolName);
  };
  return {
    url: server.url,
    nextPending: (toolName, timeoutMs = 20_000) =>
      vi.waitFor(
        async () => {
          const entry = await listed(toolName);
          if (entry === undefined) throw new Error(`no pending ${toolName} yet`);
          return entry;
        },
        { timeout: timeoutMs, interval: 50 },
      ),
    decide: async (entry, body) =>
      (
        await fetch(`${server.url}/runs/${entry.runId}/approvals/${entry.request.approvalId}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
        })
      ).status,
    close: () => server.close(),
  };
}

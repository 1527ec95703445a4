// The request API of a running approval app (npm start, a gateway's --port, your own) over HTTP: POST /approvals,
// GET /approvals/:id?waitMs= (a long poll, at most a minute a call) and POST /approvals/:id/cancel, as the hook asks
// them of a runtime. The app's runtime holds the requests, its request policy decides them.
import { z } from 'zod';
import type { RequestState } from '../../index.js';
import { appCall, appUrl } from '../http-approvals.js';
import type { HookRequests } from './hook-verdict.js';

/** The longest a `GET /approvals/:id` waits (the app's own limit). */
const LONG_POLL_MS = 60_000;

/** What the app answers for a request: a state with its id and status (the rest as the app sends it). */
const stateSchema = z.custom<RequestState>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { id?: unknown }).id === 'string' &&
    typeof (value as { status?: unknown }).status === 'string',
);

/** The requests of the approval app at `url`, reached with its bearer `token`. */
export function httpRequests({ url, token }: { url: string; token: string }): HookRequests {
  const app = { base: appUrl(url), token };
  const route = (id: string, rest = '') => `approvals/${encodeURIComponent(id)}${rest}`;
  const handle = (id: string) => ({
    id,
    async wait({ timeoutMs = Number.POSITIVE_INFINITY, signal }: { timeoutMs?: number; signal?: AbortSignal }) {
      const deadline = Date.now() + timeoutMs;
      let state: RequestState = { status: 'pending', id, approved: false };
      for (;;) {
        const waitMs = Math.floor(Math.max(0, Math.min(LONG_POLL_MS, deadline - Date.now())));
        try {
          state = (await appCall(app, 'GET', route(id, `?waitMs=${waitMs}`), stateSchema, undefined, signal)).value;
        } catch (error) {
          if (signal?.aborted) return state;
          throw error;
        }
        if (state.status !== 'pending' || Date.now() >= deadline || signal?.aborted) return state;
      }
    },
    cancel: async (reason?: string) =>
      (await appCall(app, 'POST', route(id, '/cancel'), stateSchema, reason === undefined ? {} : { reason })).value,
  });
  return {
    requestApproval: async (ask) => handle((await appCall(app, 'POST', 'approvals', stateSchema, ask)).value.id),
  };
}

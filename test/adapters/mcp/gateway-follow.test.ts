// The gateway follows the runs it started with no client waiting: a decision recorded by another runtime on the same
// store is carried out by itself, exactly once, and an approval that expires is applied; a retry then gets the outcome.
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from 'countersign';
import {
  closeGateways,
  deciderRuntime,
  gatewayWithClient,
  nextPending,
  pausedCall,
  runEnded,
  textOf,
} from '../../support/mcp-gateway-kit.js';

afterEach(closeGateways);

describe('createMcpGateway follows its runs', () => {
  it('forwards a call decided elsewhere with mode record once, with no retry; the retry gets the result', async () => {
    const store = createMemoryStore();
    const { gateway, log, call } = await gatewayWithClient({ store, waitMs: 50, followEveryMs: 50 });
    expect(textOf(await pausedCall(gateway.runtime, () => call('delete_file', { path: '/f' })))).toMatch(
      /^Approval pending \(approval id /,
    );
    const { runId, request } = await nextPending(gateway.runtime);
    const ended = runEnded(gateway.runtime, runId);
    const recorded = await deciderRuntime(gateway, store).respond(
      runId,
      { approvalId: request.approvalId, approved: true, approvedBy: 'frank' },
      { mode: 'record' },
    );
    expect(recorded.status).toBe('running');
    expect((await ended).status).toBe('completed');
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/f' } }]);
    expect(await call('delete_file', { path: '/f' })).toEqual({ content: [{ type: 'text', text: 'deleted /f' }] });
    expect(log.calls('delete_file')).toHaveLength(1);
  });

  it('applies an expiry with no client waiting, never forwards the call, and answers the retry with it', async () => {
    const { gateway, log, call } = await gatewayWithClient({ waitMs: 50, followEveryMs: 50, approvalTtlMs: 400 });
    expect(textOf(await pausedCall(gateway.runtime, () => call('delete_file', { path: '/g' })))).toMatch(
      /^Approval pending/,
    );
    const { runId } = await nextPending(gateway.runtime);
    const run = await runEnded(gateway.runtime, runId);
    expect(run.audit).toMatchObject([{ decision: 'denied', source: 'expiry' }]);
    expect(log.calls('delete_file')).toEqual([]);
    expect(textOf(await call('delete_file', { path: '/g' }))).toMatch(
      /^Nobody approved this call before its approval expired/,
    );
    expect(log.calls('delete_file')).toEqual([]);
  });
});

import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/example-process.js';

describe('examples/nested-agents.ts (an orchestrator and a deployer sub-agent)', () => {
  it('pauses on the inner deploy call with its chain, and one approval runs it once and finishes the run', async () => {
    const { child, lines } = runExample('examples/nested-agents.ts', {});
    try {
      // The example ends on its own: every line it printed is read once its output closed.
      const [code] = await once(child, 'close');
      expect(code).toBe(0);
      expect(lines).toEqual([
        'status: awaitingApproval',
        'waiting for: deploy {"service":"billing","version":"2.4.1"} (Deploy billing 2.4.1 to production?)',
        expect.stringMatching(/^asked by: lead › deployer \(via deployer call_\w+\)$/),
        'approved by alice: run is completed',
        'answer: The deployer reports: Release done: deployed billing 2.4.1.',
        'deployed: billing@2.4.1',
      ]);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

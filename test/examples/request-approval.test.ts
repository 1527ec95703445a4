import { describe, expect, it } from 'vitest';
import { runExample } from '../support/example-process.js';
import { freePort } from '../support/free-port.js';

const approveAs = async (line: string) => {
  const answer = await fetch(line.replace(/^.* approves: /, ''), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(answer.status).toBe(200);
};

describe('examples/request-approval.ts (a script that is not an agent)', () => {
  it('asks once for a retried ask, deploys what was approved, and wires once two people approved', async () => {
    const port = await freePort();
    const { child, lineMatching } = runExample('examples/request-approval.ts', { PORT: String(port) });
    try {
      expect(await lineMatching(/^asked req_/)).toMatch(/the same request: true\)$/);
      await approveAs(await lineMatching(/^you@example.com approves: /));
      expect(await lineMatching(/^deploying /)).toBe(
        'deploying {"service":"billing","version":"2.4.1"} (approved by you@example.com)',
      );
      await approveAs(await lineMatching(/^alice approves: /));
      await approveAs(await lineMatching(/^bob approves: /));
      expect(await lineMatching(/^wiring /)).toMatch(
        /^wiring \{"amount":90000,"to":"acct-42"\} \(approved by (bob|alice)/,
      );
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('reminds the approvers of a request nobody decides, then gives up when it expires', async () => {
    const port = await freePort();
    const { child, lineMatching } = runExample('examples/request-approval.ts', {
      PORT: String(port),
      WIRE_EXPIRES_MS: '4000',
    });
    try {
      await approveAs(await lineMatching(/^you@example.com approves: /));
      await lineMatching(/^alice approves: /);
      expect(await lineMatching(/^reminder 1 sent for wire$/)).toBeTruthy();
      expect(await lineMatching(/^not wiring: /)).toBe('not wiring: expired');
    } finally {
      child.kill('SIGTERM');
    }
  });
});

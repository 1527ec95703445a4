import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serialize } from 'countersign';
import { crossProcessAgent, type CrossProcessLog } from '../support/cross-process-agent.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the child script with `stdin` as its input; resolves with its stdout once it exits cleanly. */
function runChild(stdin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/resume-in-child.ts'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited with ${code}: ${err}`))));
    child.stdin.end(stdin);
  });
}

describe('a snapshot crosses processes', () => {
  it('pauses here, resumes in a freshly spawned Node process: the tool runs there once and the run completes', async () => {
    const log: CrossProcessLog = { executions: [] };
    const paused = await crossProcessAgent(log).execute({
      input: 'Invoice ACME for the October work',
      runId: 'run_cross-process',
    });
    expect(paused.status).toBe('awaitingApproval');
    expect(paused.pendingApprovals[0]!.description).toBe('Send an invoice of 12500 cents to ACME?');

    const report = JSON.parse(await runChild(serialize(paused)));

    expect(log.executions).toEqual([]);
    expect(report.pid).not.toBe(process.pid);
    expect(report.status).toBe('completed');
    expect(report.stopReason).toBe('completed');
    expect(report.executions).toEqual([
      {
        pid: report.pid,
        input: { customer: 'ACME', amountCents: 12_500 },
        toolCallId: 'call_invoice',
        idempotencyKey: 'run_cross-process:call_invoice',
      },
    ]);
    expect(report.output).toBe('Result: [{"sent":true,"to":"ACME"}]');
    expect(report.version).toBeGreaterThan(paused.version);
    expect(report.audit).toEqual([
      expect.objectContaining({
        approvalId: paused.pendingApprovals[0]!.approvalId,
        decision: 'approved',
        source: 'human',
        by: 'child-approver',
      }),
    ]);
  });
});

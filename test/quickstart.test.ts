import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('examples/quickstart.ts', () => {
  it('pauses for approval, resumes after the approval and prints the answer', () => {
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], { encoding: 'utf8' });
    expect(output).toContain('status: awaitingApproval (awaiting_approval)');
    expect(output).toContain('approval requested: Delete /tmp/report.txt?');
    expect(output).toContain('status: completed (completed)');
    expect(output).toContain('answer: Deleted /tmp/report.txt.');
    expect(output).toContain('files left: /tmp/notes.txt');
  });
});

// examples/mcp-agent.ts runs as a user runs it (npm run example:mcp): it starts the fixture MCP server over stdio.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

describe('examples/mcp-agent.ts', () => {
  it('runs the read without asking, pauses on the gated delete with its badge, is approved and finishes', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/mcp-agent.ts'], {
      encoding: 'utf8',
    });
    expect(stdout.trimEnd().split('\n')).toEqual([
      'connected to files: connected, tools read_file, delete_file',
      'status: awaitingApproval',
      'approval requested: delete_file {"path":"/tmp/report.txt"} through files [destructive]',
      'tool said: contents of /tmp/report.txt',
      'tool said: deleted /tmp/report.txt',
      'status: completed, answer: Read and deleted /tmp/report.txt.',
    ]);
  });
});

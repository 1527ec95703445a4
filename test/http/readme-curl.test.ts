// The signed curl example of the manual's HTTP page (docs/http.md), run as written against a real server.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import { harness, SECRET, startPaused } from './harness.js';

const tools = ['bash', 'curl', 'openssl', 'base64', 'od'].every(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0,
);

function readmeBlock(marker: string): string {
  const readme = readFileSync(new URL('../../docs/http.md', import.meta.url), 'utf8');
  const match = new RegExp(`<!-- test: ${marker} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!match) throw new Error(`docs/http.md has no sh block after <!-- test: ${marker} -->`);
  return match[1]!;
}

describe.skipIf(!tools)('docs/http.md: signed curl', () => {
  it('decides an approval with the curl command as written', async () => {
    const h = harness({ app: { clock: Date.now } });
    const server = await serve(h.app, { port: 0 });
    try {
      const { runId, approvalId } = await startPaused(h, '/tmp/from-curl');
      const script = readmeBlock('signed-curl');
      // Not spawnSync: it would block the event loop that serves the request.
      const output = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('bash', ['--norc', '--noprofile', '-eo', 'pipefail', '-c', script], {
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            WEBHOOK_SECRET: SECRET,
            BASE: server.url,
            RUN_ID: runId,
            APPROVAL_ID: approvalId,
          },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
      expect(output.code, output.stderr).toBe(0);
      expect(JSON.parse(output.stdout)).toMatchObject({
        status: 'completed',
        duplicate: false,
        run: { audit: [{ by: 'alice', decision: 'approved' }] },
      });
      expect(h.executed).toEqual(['/tmp/from-curl']);
    } finally {
      await server.close();
    }
  });
});

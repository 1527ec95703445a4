// The curl examples of the manual's HTTP page (docs/http.md), run as written against a real server: a signed
// decision, and a request asked and waited for.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { serve } from 'countersign/http';
import { harness, SECRET, startPaused, TOKEN } from './harness.js';

const tools = ['bash', 'curl', 'openssl', 'base64', 'od'].every(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0,
);

function readmeBlock(marker: string): string {
  const readme = readFileSync(new URL('../../docs/http.md', import.meta.url), 'utf8');
  const match = new RegExp(`<!-- test: ${marker} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!match) throw new Error(`docs/http.md has no sh block after <!-- test: ${marker} -->`);
  return match[1]!;
}

/** Runs the sh block after `<!-- test: marker -->` with bash, with `env` and nothing else of this process's. */
function runBlock(marker: string, env: Record<string, string>) {
  const script = readmeBlock(marker);
  // Not spawnSync: it would block the event loop that serves the request.
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-eo', 'pipefail', '-c', script], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!tools)('docs/http.md: signed curl', () => {
  it('decides an approval with the curl command as written', async () => {
    const h = harness({ app: { clock: Date.now } });
    const server = await serve(h.app, { port: 0 });
    try {
      const { runId, approvalId } = await startPaused(h, '/tmp/from-curl');
      const output = await runBlock('signed-curl', {
        WEBHOOK_SECRET: SECRET,
        BASE: server.url,
        RUN_ID: runId,
        APPROVAL_ID: approvalId,
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

describe.skipIf(!tools)('docs/http.md: a request asked and waited for with curl', () => {
  it('asks, long-polls and prints the decision a person made, with the arguments they approved', async () => {
    const h = harness({ app: { clock: Date.now } });
    const server = await serve(h.app, { port: 0 });
    try {
      const running = runBlock('request-curl', { TOKEN, BASE: server.url });
      const pending = await vi.waitFor(
        async () => {
          const [item] = (await h.runtime.pending()).items;
          if (item === undefined) throw new Error('not asked yet');
          return item;
        },
        { timeout: 20_000 },
      );
      expect(pending.request).toMatchObject({ toolName: 'deploy', reason: 'Release train 48' });
      await h.runtime.respond(pending.runId, {
        approvalId: pending.request.approvalId,
        approved: true,
        approvedBy: 'alice',
        args: { service: 'billing', version: '2.4.2' },
      });
      const output = await running;
      expect(output.code, output.stderr).toBe(0);
      expect(JSON.parse(output.stdout)).toMatchObject({
        id: pending.runId,
        status: 'approved',
        approved: true,
        args: { service: 'billing', version: '2.4.2' },
        by: 'alice',
      });
    } finally {
      await server.close();
    }
  });
});

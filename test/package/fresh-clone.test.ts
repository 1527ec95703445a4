import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Why this suite cannot run here (no git, or no way to the npm registry), or undefined when it can. */
async function missing(): Promise<string | undefined> {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'git is not installed';
  }
  const registry = execFileSync(npm, ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  try {
    await fetch(registry, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    return `no network to the npm registry ${registry} (${(error as Error).message})`;
  }
  return undefined;
}

const skipped = await missing();
// Said where it is seen whatever the reporter (the console is kept for what tests assert).
if (skipped !== undefined) process.stderr.write(`test/package/fresh-clone.test.ts skipped: ${skipped}\n`);
const quiet = ['--prefer-offline', '--no-audit', '--no-fund'];

// The quickstart as a consumer writes it, importing the installed package by name.
const quickstart = `
import { z } from 'zod';
import { createAgent, defineTool, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
const files = new Set(['/tmp/report.txt']);
const deleteFile = defineTool({
  name: 'delete_file', description: 'Delete a file', input: z.object({ path: z.string() }), needsApproval: true,
  execute: async ({ path }) => ({ deleted: files.delete(path) }),
});
const model = createScriptedModel([toolCallTurn('delete_file', { path: '/tmp/report.txt' }), textTurn('Deleted.')]);
const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
const paused = await agent.execute({ input: 'remove /tmp/report.txt' });
const request = deserialize(serialize(paused)).pendingApprovals[0];
const done = await agent.execute(withApprovalResponse(deserialize(serialize(paused)), { approvalId: request.approvalId, approved: true, approvedBy: 'alice' }, { agent }));
console.log(paused.status, done.status, done.output, files.size);
`;

describe.skipIf(skipped !== undefined)(
  `from a fresh clone${skipped === undefined ? '' : ` (skipped: ${skipped})`}`,
  () => {
    let work = '';
    afterAll(() => (work === '' ? undefined : rmSync(work, { recursive: true, force: true })));

    it('npm ci and npm start -- --once complete a run; npm pack ships the build, and the quickstart runs from the installed tarball', async () => {
      work = mkdtempSync(join(tmpdir(), 'countersign-clone-'));
      // The committed state of this checkout's HEAD, as a new contributor would get it.
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
      const clone = join(work, 'countersign');
      await run('git', ['clone', '--quiet', '--no-checkout', process.cwd(), clone]);
      await run('git', ['-C', clone, 'checkout', '--quiet', head]);
      // Outside CI and the test run's own settings: what a person gets typing the commands.
      const { CI: _ci, COUNTERSIGN_TOKEN: _token, REDIS_URL: _redis, ...env } = process.env;

      await run(npm, ['ci', ...quiet], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 });
      const port = await freePort();
      const started = await run(npm, ['start', '--', '--once'], { cwd: clone, env: { ...env, PORT: String(port) } });
      expect(started.stdout).toContain(`console:   http://127.0.0.1:${port}/`);
      expect(started.stdout).toMatch(/^once: run run_\S+ is completed; /m);

      const packed = await run(npm, ['pack', '--silent'], { cwd: clone, env, maxBuffer: 64 * 1024 * 1024 });
      const tarball = join(clone, packed.stdout.trim().split('\n').at(-1)!);
      const listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
      expect(listing).toEqual(
        expect.arrayContaining([
          'package/LICENSE',
          'package/README.md',
          'package/dist/index.js',
          'package/dist/index.d.ts',
          'package/dist/http/index.js',
        ]),
      );
      expect(listing.filter((path) => path.startsWith('package/src/') || path.startsWith('package/test/'))).toEqual([]);

      const consumer = join(work, 'consumer');
      mkdirSync(consumer);
      writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
      await run(npm, ['install', tarball, 'zod', ...quiet], { cwd: consumer, env });
      expect(readdirSync(join(consumer, 'node_modules', 'countersign'))).toEqual(
        expect.arrayContaining(['LICENSE', 'dist', 'package.json']),
      );
      writeFileSync(join(consumer, 'quickstart.mjs'), quickstart);
      const { stdout } = await run(process.execPath, ['quickstart.mjs'], { cwd: consumer });
      expect(stdout).toBe('awaitingApproval completed Deleted. 0\n');
    }, 900_000);
  },
);

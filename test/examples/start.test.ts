import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';

// Without REDIS_URL, as `npm start` runs by default: with it, the demo would keep its runs in that Redis under its own
// prefix, where they outlive the test (and showed up later in the CLI as cards nobody could approve).
const { REDIS_URL: _redis, ...baseEnv } = process.env;

/** `npm start`'s entry, run as npm runs it (tsx), with `env` on top of this process's; resolves with its exit and output. */
function start(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/start.ts', ...args], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('npm start (examples/start.ts)', () => {
  it('--once serves the app on PORT, approves the waiting run over HTTP and exits 0 once it completed', async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await start(['--once'], {
      PORT: String(port),
      COUNTERSIGN_TOKEN: 'a-demo-token-of-sixteen+',
    });
    expect(stderr).toBe('');
    expect(stdout).toContain(`console:   http://127.0.0.1:${port}/  (sign in with the token in COUNTERSIGN_TOKEN)`);
    expect(stdout).toMatch(/^run run_\S+ waits for 2 approvals:$/m);
    expect(stdout).toContain(
      '  - fetch_url: Fetch https://status.example.net/? (Domain "status.example.net" is not on the allowlist. Approval required to fetch.)',
    );
    expect(stdout).toContain('  - write_file: Write 71 characters to notes/summary.md?');
    // Reading, listing and the allowlisted fetch ran without asking anyone; only the two asked calls were decided by a person.
    expect(stdout.match(/^decided: .*$/gm)).toEqual([
      'decided: fetch_url approved by npm-start-once',
      'decided: write_file approved by npm-start-once',
    ]);
    expect(stdout).toMatch(/^once: run run_\S+ is completed; notes\/summary\.md has 71 characters$/m);
    expect(code).toBe(0);
  });

  it('prints the generated sign-in token when COUNTERSIGN_TOKEN is unset, and it opens the app', async () => {
    const port = await freePort();
    const env: Record<string, string> = { PORT: String(port) };
    const { COUNTERSIGN_TOKEN: _ignored, ...rest } = baseEnv;
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/start.ts'], {
      env: { ...rest, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const token = await new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stdout.on('data', (chunk) => {
          seen += chunk;
          const match = /sign in with the token (\S+)\)/.exec(seen);
          if (match && /^run .* waits/m.test(seen)) resolve(match[1]!);
        });
        child.once('exit', () => reject(new Error(`exited early: ${seen}`)));
      });
      expect((await fetch(`http://127.0.0.1:${port}/approvals`)).status).toBe(401);
      const listed = await fetch(`http://127.0.0.1:${port}/approvals`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(2);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('a busy PORT gives one line naming the port and how to choose another, and exit 1', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const { code, stdout, stderr } = await start([], { PORT: String(port) });
      expect(stderr).toBe(`port ${port} is in use; set PORT=<a free port>, e.g. PORT=${port + 1} npm start\n`);
      expect(stdout).toBe('');
      expect(code).toBe(1);
    } finally {
      busy.close();
    }
  });

  it('npm start in one terminal, the npm run review it prints in another: both approvals decided over HTTP and the run completes', async () => {
    const port = await freePort();
    const { COUNTERSIGN_TOKEN: _ignored, ...rest } = process.env;
    const app = spawn(process.execPath, ['--import', 'tsx', 'examples/start.ts'], {
      env: { ...rest, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const appExited = new Promise((resolve) => app.once('exit', resolve));
    let appOut = '';
    const appPrinted = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const look = () => {
          const match = pattern.exec(appOut);
          if (match) resolve(match);
        };
        app.stdout.on('data', (chunk) => {
          appOut += chunk;
          look();
        });
        app.once('exit', () => reject(new Error(`npm start exited: ${appOut}`)));
        look();
      });
    try {
      const [, printed] = await appPrinted(/^or review them one by one in another terminal: npm run review -- (.+)$/m);
      const runId = /^run (\S+) waits for 2 approvals:$/m.exec(appOut)![1]!;
      // The review script as npm runs it (tsx from node_modules/.bin is node --import tsx), with what npm start printed.
      const script = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts[
        'review'
      ]!;
      expect(script).toMatch(/^tsx src\/cli\/index\.ts review /);
      const args = [...script.split(' ').slice(1), ...printed!.split(' ')];
      const review = spawn(process.execPath, ['--import', 'tsx', ...args], {
        env: rest,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      review.stdout.on('data', (chunk) => (out += chunk));
      review.stderr.on('data', (chunk) => (err += chunk));
      const reviewed = new Promise((resolve) => review.once('exit', resolve));
      const completed = appPrinted(new RegExp(`^run ${runId} completed`, 'm'));
      review.stdin.end('y\ny\n');
      expect(await reviewed).toBe(0);
      expect(err).toBe('');
      expect(out).toContain(`the approval app at http://127.0.0.1:${port} carried it out; run ${runId} is completed`);
      expect(out).toContain('2 decided');
      await completed;
    } finally {
      app.kill('SIGTERM');
      await appExited;
    }
  });
});

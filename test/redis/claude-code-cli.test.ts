// The real Claude Code CLI (@anthropic-ai/claude-code, `claude -p`) with `countersign hook claude-code --redis` as its
// PreToolUse hook, talking to a loopback fake of the Anthropic Messages API (streamed) that asks for one Bash call:
// the call waits for a person, who approves it over the approval app on the same Redis, and the command runs once.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { serveApprovalApp } from '../support/approval-app-on-redis.js';
import { builtScript } from '../support/built.js';
import { ANTHROPIC_API_KEY, messageAnswer, startFakeAnthropic } from '../support/fake-anthropic.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const claude = fileURLToPath(new URL('../../node_modules/.bin/claude', import.meta.url));

/** Why the Claude Code CLI cannot run here, or undefined when it can. */
function missing(): string | undefined {
  try {
    execFileSync(claude, ['--version'], { stdio: 'ignore', timeout: 60_000 });
    return undefined;
  } catch (error) {
    return `the Claude Code CLI (${claude}) does not run here: ${(error as Error).message}`;
  }
}

/** `claude <args>` with nothing on stdin: its exit code and output once it exits. */
function runClaude(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(claude, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

const skipped = url ? missing() : 'no Redis';
if (skipped !== undefined) process.stderr.write(`test/redis/claude-code-cli.test.ts skipped: ${skipped}\n`);

describe.skipIf(skipped !== undefined)('Claude Code with the countersign hook', () => {
  const redis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('asks a person about its Bash call; approved over the approval app, the command runs once', {
    timeout: 120_000,
  }, async () => {
    const cliScript = await builtScript('src/cli/index.ts');
    const api = await startFakeAnthropic();
    const command = { command: 'echo hi >> file', description: 'Append hi to file' };
    api.answer(
      // With thinking on (Claude Code turns it on), the API wants the assistant turn back starting with its thinking.
      messageAnswer(
        [
          { type: 'thinking', thinking: 'The user wants hi appended to file.', signature: 'c2lnbmF0dXJl' },
          { type: 'tool_use', id: 'toolu_e2e', name: 'Bash', input: command },
        ],
        { stop_reason: 'tool_use' },
      ),
      messageAnswer([{ type: 'text', text: 'Appended hi to file.' }]),
    );
    const app = await serveApprovalApp(redis, prefix);
    const work = mkdtempSync(join(tmpdir(), 'countersign-claude-'));
    const home = mkdtempSync(join(tmpdir(), 'countersign-claude-home-'));
    const hook = `"${process.execPath}" "${cliScript}" hook claude-code --redis ${url} --prefix ${prefix} --wait-ms 45000`;
    writeFileSync(
      join(work, 'settings.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook, timeout: 60 }] }] },
      }),
    );
    try {
      const run = runClaude(
        ['-p', 'Append hi to file', '--settings', join(work, 'settings.json'), '--output-format', 'json'],
        {
          cwd: work,
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            HOME: home,
            // Claude Code keeps per-project files under its temporary folder: in the home this test removes.
            TMPDIR: home,
            ANTHROPIC_API_KEY,
            ANTHROPIC_BASE_URL: api.baseUrl,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
          },
        },
      );
      const entry = await app.nextPending('Bash', 60_000);
      expect(entry.request).toMatchObject({ args: command, description: 'Run echo hi >> file' });
      expect(readFileSync(join(work, 'file'), { flag: 'a+', encoding: 'utf8' })).toBe('');
      expect(await app.decide(entry, { approved: true, approvedBy: 'hana' })).toBe(200);
      const done = await run;
      expect(done.code, done.err).toBe(0);
      const result = JSON.parse(done.out) as Record<string, unknown>;
      expect(result).toMatchObject({ is_error: false, result: 'Appended hi to file.', permission_denials: [] });
      expect(readFileSync(join(work, 'file'), 'utf8')).toBe('hi\n');
      expect(api.requests).toHaveLength(2);
      const toolResult = api.requests[1]!.json.messages.at(-1)!.content.find((block) => block.type === 'tool_result');
      expect(toolResult).toMatchObject({ tool_use_id: 'toolu_e2e', is_error: false });
    } finally {
      await app.close();
      await api.close();
      for (const dir of [work, home]) rmSync(dir, { recursive: true, force: true });
    }
  });
});

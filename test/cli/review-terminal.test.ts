// `countersign review` as a person uses it: the CLI spawned in a real pseudo-terminal (tmux), keys pressed one at a
// time, and each decision read back from the Redis store the test and the CLI share (test/fixtures/cli-runtime.ts).
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { AGENT, paymentsRuntime } from '../fixtures/cli-runtime.js';
import { removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { hasTmux, openTerminal, type Terminal } from '../support/tmux-terminal.js';

const url = inject('redisUrl');
const root = fileURLToPath(new URL('../..', import.meta.url));
const runtimeModule = 'test/fixtures/cli-runtime.ts';

describe.skipIf(!url || !hasTmux)('countersign review in a terminal', () => {
  const redis = new Redis(url!);
  const prefixes: string[] = [];
  const terminals: Terminal[] = [];
  afterEach(async () => {
    for (const terminal of terminals.splice(0)) await terminal.close();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** A runtime on a fresh prefix, and a terminal running `countersign review` against the same store. */
  async function reviewing(
    runs: readonly { args: Record<string, unknown>; sessionId?: string }[],
    env: Record<string, string> = {},
  ) {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const runtime = paymentsRuntime(redis, prefix);
    const started = [];
    for (const run of runs)
      started.push(
        await runtime.start(AGENT, {
          input: JSON.stringify(run.args),
          ...(run.sessionId ? { sessionId: run.sessionId } : {}),
        }),
      );
    const terminal = await openTerminal(
      [process.execPath, '--import', 'tsx', 'src/cli/index.ts', 'review', '--by', 'alice', '--runtime', runtimeModule],
      { REDIS_URL: url!, COUNTERSIGN_TEST_PREFIX: prefix, NO_COLOR: '', ...env },
      root,
    );
    terminals.push(terminal);
    return { runtime, started, terminal };
  }

  /** The run id on the card showing now (the last "run ..." line after `after`). */
  const cardRun = (screen: string) => [...screen.matchAll(/^ {2}run (\S+)/gm)].at(-1)![1]!;

  it('shows each card as a person reads it, and y, n with a reason, s, v and q each do what they say', async () => {
    // Each run pays 15 invoices: more argument lines than a card shows.
    const invoices = (run: number) => Array.from({ length: 15 }, (_, index) => `INV-${run}-${100 + index}`);
    const { runtime, started, terminal } = await reviewing([
      { args: { to: 'acct-1', cents: 100, invoices: invoices(1) } },
      { args: { to: 'acct-2', cents: 200, invoices: invoices(2) }, sessionId: 'chat-7' },
      { args: { to: 'acct-3', cents: 300, invoices: invoices(3) } },
      { args: { to: 'acct-4', cents: 400, invoices: invoices(4) } },
    ]);
    const byRun = new Map(started.map((run) => [run.runId, run]));

    let seen = await terminal.waitFor(/1 of 4.*\n[\s\S]*skip · q quit/);
    expect(seen).toContain('1 of 4  agent payments\nsend_payment  Send a payment\n');
    const first = cardRun(seen);
    // s is for the session when the run has one (a grant for its later runs), else for the run.
    const widerOf = (runId: string) => (byRun.get(runId)!.sessionId === undefined ? 'run' : 'session');
    expect(seen).toContain(
      `y approve once · s approve for this ${widerOf(first)} · n deny · d dismiss · e edit · v view all · j skip · q quit`,
    );
    expect(await terminal.screen(true)).toContain('\u001b['); // colour on a terminal
    expect(seen).toMatch(
      new RegExp(
        `\n {2}run ${first} {2}(session chat-7 {2})?approval ${byRun.get(first)!.pendingApprovals[0]!.approvalId}\n`,
      ),
    );
    let at = await terminal.mark();
    await terminal.press('y');
    seen = await terminal.waitFor(/2 of 4[\s\S]*skip · q quit/, at);
    expect(seen).toContain('approved once: the tool ran here in this process');
    expect((await runtime.get(first)).audit).toMatchObject([
      { decision: 'approved', scope: 'once', by: 'alice', source: 'human' },
    ]);
    const paid = JSON.parse(byRun.get(first)!.messages[0]!.content) as { to: string; cents: number };
    expect((await runtime.get(first)).output).toBe(`done: paid ${paid.cents} to ${paid.to}`);

    const second = cardRun(seen);
    at = await terminal.mark();
    await terminal.press('n');
    await terminal.waitFor('reason (Enter for none):', at);
    await terminal.type('too risky');
    await terminal.press('Enter');
    seen = await terminal.waitFor(/3 of 4[\s\S]*skip · q quit/, at);
    expect(seen).toContain('reason (Enter for none): too risky\ndenied (too risky): the call does not run');
    expect((await runtime.get(second)).audit).toMatchObject([{ decision: 'denied', reason: 'too risky', by: 'alice' }]);

    const third = cardRun(seen);
    at = await terminal.mark();
    await terminal.press('s');
    seen = await terminal.waitFor(/4 of 4[\s\S]*skip · q quit/, at);
    expect(seen).toContain(`approved for this ${widerOf(third)}: the tool ran here in this process`);
    expect((await runtime.get(third)).audit).toMatchObject([
      { decision: 'approved', scope: widerOf(third), by: 'alice' },
    ]);

    // The card is cut; v shows every argument.
    const fourth = cardRun(seen);
    const last = (byRun.get(fourth)!.pendingApprovals[0]!.args as { invoices: string[] }).invoices.at(-1)!;
    expect(seen).toContain('  | … 9 more lines (v to view all)');
    expect(seen).not.toContain(last);
    at = await terminal.mark();
    await terminal.press('v');
    seen = await terminal.waitFor(new RegExp(`${last}[\\s\\S]*skip · q quit`), at);
    expect(seen).not.toContain('more lines');
    await terminal.press('q');
    expect(await terminal.exitCode()).toBe(0);
    const all = await terminal.screen();
    expect(all).toMatch(/\n3 decided\n/);
    expect(all).toContain(
      `  run ${started[1]!.runId}  session chat-7  approval ${started[1]!.pendingApprovals[0]!.approvalId}`,
    );
    expect((await runtime.get(fourth)).status).toBe('awaitingApproval');
  }, 120_000);

  it('e opens $EDITOR on the arguments; not JSON, then arguments the tool refuses, are shown and reopened; the valid edit runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-editor-'));
    const editor = join(dir, 'editor.sh');
    // Each opening saves what it was given, then writes: not JSON, then cents the schema refuses, then a valid edit.
    writeFileSync(
      editor,
      `#!/bin/sh
n=$(cat "${dir}/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/count"
cp "$1" "${dir}/given-$n.json"
case $n in
  1) printf '{"to": "acct-9",' > "$1" ;;
  2) printf '{"to": "acct-9", "cents": -5}' > "$1" ;;
  *) printf '{"to": "acct-9", "cents": 4200}' > "$1" ;;
esac
`,
    );
    chmodSync(editor, 0o755);
    const { runtime, started, terminal } = await reviewing([{ args: { to: 'acct-1', cents: 100 } }], {
      EDITOR: editor,
      VISUAL: '',
    });
    await terminal.waitFor('skip · q quit');
    await terminal.press('e');
    await terminal.waitFor(/not JSON: [\s\S]*e edit again · c cancel the edit/);
    expect(JSON.parse(readFileSync(join(dir, 'given-1.json'), 'utf8'))).toEqual({ to: 'acct-1', cents: 100 });
    await terminal.press('e');
    const refused = await terminal.waitFor(/do not match the input schema of send_payment[\s\S]*c cancel the edit/);
    expect(refused).toContain('cents: Too small');
    // Reopened on what the reviewer wrote, not on the original.
    expect(readFileSync(join(dir, 'given-2.json'), 'utf8')).toBe('{"to": "acct-9",');
    await terminal.press('e');
    expect(await terminal.waitFor('1 decided')).toContain('approved with your edit: the tool ran here in this process');
    expect(await terminal.exitCode()).toBe(0);
    const run = await runtime.get(started[0]!.runId);
    expect(run.audit).toMatchObject([{ decision: 'approved', by: 'alice' }]);
    expect(run.audit[0]!.editedArgsDigest).toBeDefined();
    expect(run.output).toBe('done: paid 4200 to acct-9');
  }, 60_000);

  it('c cancels an edit and leaves the card undecided, Ctrl-C quits; with NO_COLOR the terminal gets no colour', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-editor-'));
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\nprintf 'nope' > "$1"\n`);
    chmodSync(editor, 0o755);
    const { runtime, started, terminal } = await reviewing([{ args: { to: 'acct-1', cents: 100 } }], {
      EDITOR: editor,
      VISUAL: '',
      NO_COLOR: '1',
    });
    await terminal.waitFor('skip · q quit');
    expect(await terminal.screen(true)).not.toContain('\u001b[');
    await terminal.press('e');
    await terminal.waitFor('c cancel the edit');
    const at = await terminal.mark();
    await terminal.press('c');
    await terminal.waitFor('skip · q quit', at);
    // Ctrl-C reaches the reviewer as a key (the terminal is raw) and ends the review as q does.
    await terminal.press('C-c');
    expect(await terminal.exitCode()).toBe(0);
    expect(await terminal.screen()).toMatch(/\n0 decided\n/);
    expect((await runtime.get(started[0]!.runId)).status).toBe('awaitingApproval');
  }, 60_000);
});

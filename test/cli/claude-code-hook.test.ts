// `countersign hook claude-code` in this process on a real runtime (memory store), fed Claude Code's documented hook
// inputs: the request each tool kind makes, the answers (allow, with the person's edit as updatedInput; deny; ask
// once the wait ran out, the request withdrawn), PermissionRequest's answers, the request policy's rules, session
// grants, and bad or hostile input.
import { createRuntime, type PolicyRule } from 'countersign';
import { describe, expect, it } from 'vitest';
import { bashPayload, decideNext, preToolUse, runHook } from '../support/claude-code-hook.js';
import { runCliCaptured } from '../support/cli-run.js';

const runtimeWith = (rules: PolicyRule[] = []) => createRuntime({ requests: { policy: { rules } } });
const approve = () => ({ approved: true, approvedBy: 'alice' });

describe('countersign hook claude-code', () => {
  it("answers Claude Code's own PreToolUse input with allow once a person approves, the request keyed by the session and the tool call", async () => {
    const runtime = runtimeWith();
    const decided = decideNext(runtime, approve);
    const { code, json, err } = await runHook(runtime, bashPayload);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Approved by alice in countersign',
      },
    });
    const { runId, request, sessionId } = await decided;
    expect(sessionId).toBe(bashPayload['session_id']);
    expect(request).toMatchObject({
      toolName: 'Bash',
      args: { command: 'echo hi > file', description: 'Write hi to file' },
      description: 'Run echo hi > file',
      reason: `Claude Code in /tmp/ccx/run (session ${bashPayload['session_id']}, default permission mode)`,
    });
    // The same hook input again (Claude Code ran the hook twice) finds the same, decided request.
    const again = await runHook(runtime, bashPayload);
    expect(again.json).toEqual(json);
    expect((await runtime.pending()).items).toEqual([]);
    expect(runId).toMatch(/^req_/);
  });

  it.each([
    ['Write', { file_path: '/home/dev/app/notes.md', content: '# Notes\n' }, 'Write /home/dev/app/notes.md (2 lines)'],
    [
      'Edit',
      { file_path: '/home/dev/app/a.ts', old_string: 'let x = 1;', new_string: 'const x = 1;' },
      'Edit /home/dev/app/a.ts',
    ],
    [
      'MultiEdit',
      { file_path: '/home/dev/app/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] },
      'Edit /home/dev/app/a.ts',
    ],
    [
      'WebFetch',
      { url: 'https://docs.example.com/api', prompt: 'List the endpoints' },
      'Fetch https://docs.example.com/api',
    ],
    ['Read', { file_path: '/home/dev/app/.env' }, 'Read /home/dev/app/.env'],
    ['Glob', { pattern: 'src/**/*.ts' }, 'Find files matching src/**/*.ts'],
    ['Grep', { pattern: 'password', path: 'src', output_mode: 'content' }, 'Search for password in src'],
    [
      'mcp__github__merge_pull_request',
      { owner: 'acme', repo: 'api', pull_number: 7 },
      'merge_pull_request on MCP server github',
    ],
  ])('asks about %s as the person reads it and allows it as asked', async (tool, input, description) => {
    const runtime = runtimeWith();
    const decided = decideNext(runtime, approve);
    const { json } = await runHook(runtime, preToolUse(tool, input));
    expect(json).toEqual({
      hookSpecificOutput: expect.objectContaining({ permissionDecision: 'allow' }),
    });
    expect(json!['hookSpecificOutput']).not.toHaveProperty('updatedInput');
    const { request } = await decided;
    expect(request.toolName).toBe(tool);
    expect(request.description).toBe(description);
    if (tool === 'Edit')
      expect(request.args).toEqual({
        file_path: '/home/dev/app/a.ts',
        diff: '@@ -1,1 +1,1 @@\n-let x = 1;\n+const x = 1;',
      });
    if (tool.startsWith('mcp__'))
      expect(request.args).toEqual({ server: 'github', tool: 'merge_pull_request', arguments: input });
  });

  it("answers with the person's edit as updatedInput in the tool's own input shape", async () => {
    const runtime = runtimeWith();
    const input = { file_path: '/home/dev/app/a.ts', old_string: 'retries = 3', new_string: 'retries = 30' };
    const decided = decideNext(runtime, (request) => ({
      ...approve(),
      args: { ...(request.args as object), diff: '@@ -1,1 +1,1 @@\n-retries = 3\n+retries = 5' },
    }));
    const { json } = await runHook(runtime, preToolUse('Edit', input));
    await decided;
    expect(json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Approved by alice in countersign',
        updatedInput: { ...input, new_string: 'retries = 5' },
      },
    });
  });

  it('answers deny with who refused it and why, phrased so the model does not retry', async () => {
    const runtime = runtimeWith();
    decideNext(runtime, () => ({ approved: false, approvedBy: 'bob', reason: 'not on the release branch' }));
    const { json } = await runHook(runtime, preToolUse('Bash', { command: 'git push --force' }));
    expect(json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason:
          'bob denied this call in countersign: not on the release branch. Do not retry it or work around it; continue without it, or tell the user what you could not do.',
      },
    });
  });

  it('answers ask once --wait-ms ran out, and withdraws the request so nobody approves it later', async () => {
    const runtime = runtimeWith();
    const asked: { runId: string; approvalId: string }[] = [];
    runtime.subscribe(
      (event) =>
        event.type === 'approval-requested' && asked.push({ runId: event.runId, approvalId: event.request.approvalId }),
    );
    const { code, json } = await runHook(runtime, preToolUse('Bash', { command: 'make deploy' }), [
      '--wait-ms',
      '1000',
    ]);
    expect(code).toBe(0);
    expect(json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason:
          'Nobody decided in countersign within 1 s; the request there was withdrawn, so decide here.',
      },
    });
    expect((await runtime.pending()).items).toEqual([]);
    const [{ runId, approvalId }] = asked as [{ runId: string; approvalId: string }];
    expect(await runtime.approvalRequest(runId).status()).toMatchObject({ status: 'cancelled', approved: false });
    await expect(runtime.respond(runId, { approvalId, approved: true, approvedBy: 'late' })).rejects.toThrow();
  });

  it('answers ask when its Redis does not take the request within --wait-ms, and ends without waiting on it', async () => {
    const started = Date.now();
    const { code, out } = await runCliCaptured(
      ['hook', 'claude-code', '--redis', 'redis://127.0.0.1:1', '--wait-ms', '1000'],
      { input: JSON.stringify(bashPayload) },
    );
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason:
          'countersign did not take the request within 1 s (is its store reachable?), so decide here.',
      },
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('answers PermissionRequest with decision.behavior allow (with the edit) or deny, and leaves an ask to its dialog', async () => {
    const runtime = runtimeWith();
    const permission = (command: string, id: string) => ({
      ...preToolUse('Bash', { command }, { id }),
      hook_event_name: 'PermissionRequest',
      tool_use_id: undefined,
      permission_suggestions: [
        { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'session' },
      ],
    });
    decideNext(runtime, () => ({ ...approve(), args: { command: 'npm ci' } }));
    expect((await runHook(runtime, permission('npm install', 'a'))).json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedInput: { command: 'npm ci' } },
      },
    });
    decideNext(runtime, () => ({ approved: false, approvedBy: 'bob' }));
    expect((await runHook(runtime, permission('rm -rf build', 'b'))).json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: {
          behavior: 'deny',
          message: expect.stringMatching(/^bob denied this call in countersign\. Do not retry/),
        },
      },
    });
    expect((await runHook(runtime, permission('ls', 'c'), ['--wait-ms', '1000'])).json).toEqual({
      systemMessage: expect.stringMatching(/^Nobody decided in countersign within 1 s/),
    });
  });

  it("allows and denies at once by the request policy's rules, asking nobody", async () => {
    const runtime = runtimeWith([
      { id: 'reads', tool: 'Read', action: 'allow' },
      { id: 'no-mcp-deletes', tool: 'mcp__*__delete_*', action: 'deny', reason: 'deletes go through a ticket' },
    ]);
    const asked = [] as string[];
    runtime.subscribe((event) => event.type === 'approval-requested' && asked.push(event.request.toolName));
    expect((await runHook(runtime, preToolUse('Read', { file_path: '/home/dev/app/README.md' }))).json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Allowed by countersign rule reads',
      },
    });
    const denied = await runHook(
      runtime,
      preToolUse('mcp__github__delete_repo', { repo: 'acme/api' }, { id: 'toolu_02' }),
    );
    expect(denied.json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(
          /^The countersign policy refused this call \(rule no-mcp-deletes\): deletes go through a ticket\. Do not retry/,
        ),
      },
    });
    expect(asked).toEqual([]);
  });

  it('lets a grant "allow this command for the session" cover the later calls of that Claude Code session only', async () => {
    const runtime = runtimeWith();
    const command = { command: 'npm test' };
    decideNext(runtime, () => ({ ...approve(), scope: 'session', grant: { argsMatch: { command: 'npm test' } } }));
    expect((await runHook(runtime, preToolUse('Bash', command, { session: 'sess-A', id: 't1' }))).json).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'allow' },
    });
    const covered = await runHook(runtime, preToolUse('Bash', command, { session: 'sess-A', id: 't2' }));
    expect(covered.json).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'allow',
        permissionDecisionReason: expect.stringMatching(/^Allowed by alice's earlier approval/),
      },
    });
    // Another session (a payload naming it) is asked, and nobody answers.
    const other = await runHook(runtime, preToolUse('Bash', command, { session: 'sess-B', id: 't3' }), [
      '--wait-ms',
      '1000',
    ]);
    expect(other.json).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask' } });
    // The grant is bound to its arguments too.
    const wider = await runHook(
      runtime,
      preToolUse('Bash', { command: 'npm test && npm publish' }, { session: 'sess-A', id: 't4' }),
      ['--wait-ms', '1000'],
    );
    expect(wider.json).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask' } });
  });
});

describe('countersign hook claude-code refuses', () => {
  it('stdin that is not a hook input, with a non-blocking error (exit 1) that says what is wrong', async () => {
    const runtime = runtimeWith();
    expect(await runHook(runtime, '{not json')).toMatchObject({
      code: 1,
      out: '',
      err: expect.stringMatching(/^countersign hook claude-code: the hook input on stdin is not JSON/),
    });
    const { tool_use_id: _, ...noId } = bashPayload;
    expect((await runHook(runtime, noId)).err).toMatch(/tool_use_id is required for PreToolUse/);
    expect((await runHook(runtime, { ...bashPayload, hook_event_name: 'PostToolUse' })).err).toMatch(
      /hook_event_name must be PreToolUse or PermissionRequest/,
    );
    expect((await runHook(runtime, { ...bashPayload, tool_input: 'ls' })).code).toBe(1);
  });

  it('a misconfigured hook with a blocking error (exit 2): the call does not run', async () => {
    const runtime = runtimeWith();
    expect(await runHook(runtime, bashPayload, ['--wait-ms', '10'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--wait-ms/),
    });
    expect(await runHook(runtime, bashPayload, ['--rules', 'rules.json'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--rules and --prefix go with --redis/),
    });
  });

  it('an oversized stdin unread, asking nobody', async () => {
    const runtime = runtimeWith();
    const huge = JSON.stringify(preToolUse('Write', { file_path: '/x', content: 'a'.repeat(5 * 1024 * 1024) }));
    const { code, err } = await runHook(runtime, huge);
    expect(code).toBe(1);
    expect(err).toMatch(/larger than 4194304 bytes; it was not read/);
    expect((await runtime.pending()).items).toEqual([]);
  });

  it('a tool input with a __proto__ key: denied, asking nobody, and nothing polluted', async () => {
    const runtime = runtimeWith();
    const payload = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"ls","__proto__":{"polluted":true}}}`;
    const { json } = await runHook(runtime, payload);
    expect(json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(
          /^countersign refused to ask about this call: .*the key "__proto__" is refused/,
        ),
      },
    });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect((await runtime.pending()).items).toEqual([]);
  });

  it('a tool input nested past the depth a request takes: denied, asking nobody', async () => {
    const runtime = runtimeWith();
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const payload = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__x__y","tool_use_id":"t","tool_input":${deep}}`;
    const { code, json } = await runHook(runtime, payload);
    expect(code).toBe(0);
    expect(json).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/^countersign refused to ask about this call: .*nest/),
      },
    });
    expect((await runtime.pending()).items).toEqual([]);
  });

  it("a replayed tool call id with another input: denied, the first call's decision untouched", async () => {
    const runtime = runtimeWith();
    decideNext(runtime, approve);
    await runHook(runtime, preToolUse('Bash', { command: 'ls' }, { id: 'toolu_x' }));
    const forged = await runHook(runtime, preToolUse('Bash', { command: 'rm -rf ~' }, { id: 'toolu_x' }));
    expect(forged.json).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/already exists/),
      },
    });
  });
});

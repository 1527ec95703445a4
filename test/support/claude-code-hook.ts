// Claude Code's hook inputs as its hooks reference documents them (the Bash one as Claude Code 2.1.332 sent it to a
// hook, test/fixtures/claude-code/pre-tool-use-bash.json), the hook command run in this process on a runtime, and a
// person who decides the next request as it is announced.
import { readFileSync } from 'node:fs';
import type { ApprovalRequest, ApprovalResponse, Runtime } from 'countersign';
import { runCliCaptured } from './cli-run.js';

export const bashPayload = JSON.parse(
  readFileSync(new URL('../fixtures/claude-code/pre-tool-use-bash.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** A PreToolUse input of session `session` for `tool_name` with `tool_input`. */
export function preToolUse(
  tool_name: string,
  tool_input: Record<string, unknown>,
  { session = 'sess-1', id = 'toolu_01' }: { session?: string; id?: string } = {},
): Record<string, unknown> {
  return {
    session_id: session,
    transcript_path: `/home/dev/.claude/projects/app/${session}.jsonl`,
    cwd: '/home/dev/app',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    tool_use_id: id,
  };
}

/** `countersign hook claude-code --runtime … <args>` with `input` on stdin; the output parsed when it is JSON. */
export async function runHook(runtime: Runtime, input: unknown, args: string[] = []) {
  const result = await runCliCaptured(['hook', 'claude-code', '--runtime', 'runtime.ts', ...args], {
    runtime,
    input: typeof input === 'string' ? input : JSON.stringify(input),
  });
  return { ...result, json: result.out === '' ? undefined : (JSON.parse(result.out) as Record<string, unknown>) };
}

/**
 * Decides the next request `runtime` announces with `decision`, and resolves with the request as the person saw it
 * (after the decision is recorded).
 */
export function decideNext(
  runtime: Runtime,
  decision: (request: ApprovalRequest) => Omit<ApprovalResponse, 'approvalId'>,
): Promise<{ runId: string; request: ApprovalRequest; sessionId?: string }> {
  return new Promise((resolve, reject) => {
    const stop = runtime.subscribe((event) => {
      if (event.type !== 'approval-requested') return;
      stop();
      runtime.respond(event.runId, { approvalId: event.request.approvalId, ...decision(event.request) }).then(
        () =>
          resolve({
            runId: event.runId,
            request: event.request,
            ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
          }),
        reject,
      );
    });
  });
}

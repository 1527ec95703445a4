// The agent behind test/fixtures/snapshots/v*.json. Each fixture is frozen: it was written once and must
// keep loading as it is. v1.json came from `fixtureAgent()` (no options, run id run_fixture-v1) when the
// wire format was 1; v2.json from `npx tsx test/support/snapshot-fixture-agent.ts > test/fixtures/snapshots/v2.json`
// (FIXTURE_V2, run id run_fixture-v2). A new wire version gets a new file; never regenerate an old one.
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { createAgent, defineTool, serialize, type Agent, type Message, type ToolExecuteContext } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export const FIXTURE_AGENT = 'fixture-files';
export const FIXTURE_RUN_ID = 'run_fixture-v1';
export const FIXTURE_RUN_ID_V2 = 'run_fixture-v2';
/** The clock the fixture was written at: 2026-01-15T09:30:00.123Z. */
export const FIXTURE_TIME = Date.UTC(2026, 0, 15, 9, 30, 0, 123);

export const fixtureHistory: Message[] = [
  { role: 'system', content: 'You tidy up files. Ask before deleting anything.' },
  { role: 'user', content: 'What is in /srv/reports?' },
  { role: 'assistant', content: 'There are two reports: q3.pdf and q3-draft.pdf.' },
  { role: 'user', content: 'Remove the draft, it is outdated.' },
];

export interface FixtureOptions {
  readonly decisionSecret?: string;
  /** Who a rule lets decide deletes. */
  readonly deleteApprovers?: string[];
}

/** What v2.json was written with: signed requests and decisions, deletes reserved to two people by a rule. */
export const FIXTURE_V2 = { decisionSecret: 'fixture-decision-secret-v2-0123456789', deleteApprovers: ['alice', 'bob'] } as const satisfies FixtureOptions;

export interface FixtureCalls {
  readonly read: { path: string }[];
  readonly deleted: { input: { path: string }; ctx: ToolExecuteContext }[];
}

/** Creates (and registers) the agent with the name and tools the fixture was written with. */
export function fixtureAgent(calls: FixtureCalls = { read: [], deleted: [] }, clock: () => number = () => FIXTURE_TIME, options: FixtureOptions = {}): Agent {
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read the metadata of a file',
    input: z.object({ path: z.string() }),
    needsApproval: false,
    execute: async (input) => {
      calls.read.push(input);
      return { path: input.path, size: 48_213, modified: '2025-10-02T08:00:00.000Z' };
    },
  });
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    approvalPrompt: (input) => `Delete ${input.path}?`,
    execute: async (input, ctx) => {
      calls.deleted.push({ input, ctx });
      return { deleted: true, path: input.path };
    },
  });
  return createAgent({
    name: FIXTURE_AGENT,
    // Answers from the conversation, so a fresh agent resuming the fixture gets the final answer.
    model: createScriptedModel((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? textTurn('Deleted /srv/reports/q3-draft.pdf.')
        : toolCallTurn(
            [
              { id: 'call_read_1', name: 'read_file', args: { path: '/srv/reports/q3-draft.pdf' } },
              { id: 'call_delete_1', name: 'delete_file', args: { path: '/srv/reports/q3-draft.pdf' } },
            ],
            undefined,
            'Let me check the draft first, then delete it.',
          ),
    ),
    tools: [readFile, deleteFile],
    approvalTtlMs: 24 * 60 * 60 * 1000,
    clock,
    policy: {
      rules: [
        { id: 'reads-are-fine', tool: 'read_*', action: 'allow', reason: 'read-only' },
        ...(options.deleteApprovers === undefined ? [] : [{ id: 'deletes-need-an-owner', tool: 'delete_*', action: 'ask' as const, approvers: options.deleteApprovers }]),
      ],
    },
    ...(options.decisionSecret === undefined ? {} : { decisionSecret: options.decisionSecret }),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const paused = await fixtureAgent(undefined, undefined, { ...FIXTURE_V2, deleteApprovers: [...FIXTURE_V2.deleteApprovers] }).execute({
    input: fixtureHistory,
    runId: FIXTURE_RUN_ID_V2,
  });
  process.stdout.write(`${JSON.stringify(JSON.parse(serialize(paused)), null, 2)}\n`);
}

// The agent behind test/fixtures/snapshots/v*.json. Each fixture is frozen: it was written once and must
// keep loading as it is. v1.json came from `fixtureAgent()` (no options, run id run_fixture-v1) when the
// wire format was 1; v2.json from `npx tsx test/support/snapshot-fixture-agent.ts > test/fixtures/snapshots/v2.json`
// (FIXTURE_V2, run id run_fixture-v2); v2-parts.json from `npx tsx test/support/snapshot-fixture-agent.ts parts`
// (every message part kind, provider metadata and usage, run id run_fixture-v2-parts). A new wire version gets a new
// file; never regenerate an old one.
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import {
  createAgent,
  defineTool,
  serialize,
  type Agent,
  type Message,
  type Model,
  type ModelResponse,
  type ToolExecuteContext,
} from 'countersign';
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
export const FIXTURE_V2 = {
  decisionSecret: 'fixture-decision-secret-v2-0123456789',
  deleteApprovers: ['alice', 'bob'],
} as const satisfies FixtureOptions;

export interface FixtureCalls {
  readonly read: { path: string }[];
  readonly deleted: { input: { path: string }; ctx: ToolExecuteContext }[];
}

/** Creates (and registers) the agent with the name and tools the fixture was written with. */
export function fixtureAgent(
  calls: FixtureCalls = { read: [], deleted: [] },
  clock: () => number = () => FIXTURE_TIME,
  options: FixtureOptions = {},
  /** The first answer, when the fixture's model said more than the scripted calls (v2-parts.json). */
  firstAnswer?: ModelResponse,
  /** Another model, for a test that watches what it is sent. */
  model?: Model,
): Agent {
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
    model:
      model ??
      (firstAnswer
        ? {
            generate: async (request) =>
              request.messages.at(-1)?.role === 'tool'
                ? { message: textTurn('Deleted /srv/reports/q3-draft.pdf.') }
                : firstAnswer,
          }
        : createScriptedModel((request) =>
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
          )),
    tools: [readFile, deleteFile],
    approvalTtlMs: 24 * 60 * 60 * 1000,
    clock,
    policy: {
      rules: [
        { id: 'reads-are-fine', tool: 'read_*', action: 'allow', reason: 'read-only' },
        ...(options.deleteApprovers === undefined
          ? []
          : [
              {
                id: 'deletes-need-an-owner',
                tool: 'delete_*',
                action: 'ask' as const,
                approvers: options.deleteApprovers,
              },
            ]),
      ],
    },
    ...(options.decisionSecret === undefined ? {} : { decisionSecret: options.decisionSecret }),
  });
}

export const FIXTURE_RUN_ID_PARTS = 'run_fixture-v2-parts';

/** The history of v2-parts.json: a picture, an earlier tool turn with reasoning and a failed call, a new request. */
export const partsHistory: Message[] = [
  { role: 'system', content: 'You tidy up files. Ask before deleting anything.' },
  {
    role: 'user',
    content: 'Which of these reports is the draft?',
    parts: [
      { type: 'text', text: 'Which of these reports is the draft?' },
      {
        type: 'file',
        mediaType: 'image/png',
        data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        filename: 'listing.png',
      },
      { type: 'file', mediaType: 'application/pdf', url: 'https://files.example.com/q3-draft.pdf' },
    ],
  },
  {
    role: 'assistant',
    content: '',
    parts: [
      {
        type: 'reasoning',
        text: 'The listing shows two PDFs; read both.',
        signature: 'EqQBCgIYAhIMsig-one',
        providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
    ],
    toolCalls: [
      {
        id: 'call_read_0',
        name: 'read_file',
        args: { path: '/srv/reports/q3.pdf' },
        providerMetadata: { openai: { itemId: 'fc_000' } },
      },
      { id: 'call_read_00', name: 'read_file', args: { path: '/srv/reports/missing.pdf' } },
    ],
    usage: { inputTokens: 812, outputTokens: 64, reasoningTokens: 40, cachedInputTokens: 512 },
    finishReason: 'tool-calls',
    providerMetadata: { anthropic: { responseId: 'msg_0001' } },
  },
  {
    role: 'tool',
    toolCallId: 'call_read_0',
    content: '{"path":"/srv/reports/q3.pdf","size":48213}',
    parts: [
      {
        type: 'tool-result',
        toolCallId: 'call_read_0',
        toolName: 'read_file',
        outcome: 'ok',
        output: { path: '/srv/reports/q3.pdf', size: 48213 },
      },
    ],
  },
  {
    role: 'tool',
    toolCallId: 'call_read_00',
    content: '{"status":"error","error":"No such file"}',
    parts: [{ type: 'tool-result', toolCallId: 'call_read_00', toolName: 'read_file', outcome: 'error' }],
  },
  {
    role: 'assistant',
    content: 'q3-draft.pdf is the draft.',
    parts: [{ type: 'text', text: 'q3-draft.pdf is the draft.' }],
  },
  { role: 'user', content: 'Remove the draft, it is outdated.' },
];

/** What the model answered when v2-parts.json was written: hidden and visible reasoning, then the calls. */
export const partsAnswer = {
  role: 'assistant',
  content: 'Let me check the draft first, then delete it.',
  parts: [
    { type: 'reasoning', text: 'Deleting is irreversible; check the file first.', signature: 'EqQBCgIYAhIMsig-two' },
    {
      type: 'reasoning',
      text: '',
      encryptedContent: 'gAAAAABoEncryptedReasoning==',
      providerMetadata: { openai: { itemId: 'rs_0002' } },
    },
    { type: 'text', text: 'Let me check the draft first, then delete it.' },
  ],
  toolCalls: [
    {
      id: 'call_read_1',
      name: 'read_file',
      args: { path: '/srv/reports/q3-draft.pdf' },
      providerMetadata: { openai: { itemId: 'fc_0003' } },
    },
    { id: 'call_delete_1', name: 'delete_file', args: { path: '/srv/reports/q3-draft.pdf' } },
  ],
  providerMetadata: { anthropic: { responseId: 'msg_0002' } },
} as const satisfies Message;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options = { ...FIXTURE_V2, deleteApprovers: [...FIXTURE_V2.deleteApprovers] };
  const parts = process.argv[2] === 'parts';
  const agent = fixtureAgent(
    undefined,
    undefined,
    options,
    parts
      ? {
          message: partsAnswer,
          usage: { inputTokens: 1024, outputTokens: 96, reasoningTokens: 60 },
          finishReason: 'tool-calls',
        }
      : undefined,
  );
  const paused = await agent.execute({
    input: parts ? partsHistory : fixtureHistory,
    runId: parts ? FIXTURE_RUN_ID_PARTS : FIXTURE_RUN_ID_V2,
  });
  process.stdout.write(`${JSON.stringify(JSON.parse(serialize(paused)), null, 2)}\n`);
}

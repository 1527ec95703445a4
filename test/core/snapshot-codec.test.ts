import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApprovalSignatureError,
  ApproverNotAllowedError,
  CURRENT_SCHEMA_VERSION,
  SUPPORTED_SCHEMA_VERSIONS,
  SnapshotError,
  deserialize,
  serialize,
  withApprovalResponse,
  type AgentSnapshot,
  type MachineState,
  type Model,
  type ModelRequest,
} from 'countersign';
import {
  FIXTURE_AGENT,
  FIXTURE_RUN_ID,
  FIXTURE_RUN_ID_PARTS,
  FIXTURE_RUN_ID_V2,
  FIXTURE_TIME,
  FIXTURE_V2,
  fixtureAgent,
  fixtureHistory,
  partsAnswer,
  partsHistory,
  type FixtureCalls,
} from '../support/snapshot-fixture-agent.js';
import { thrown } from '../support/test-kit.js';

const fixtureText = readFileSync(new URL('../fixtures/snapshots/v1.json', import.meta.url), 'utf8');
const fixtureV2Text = readFileSync(new URL('../fixtures/snapshots/v2.json', import.meta.url), 'utf8');
const v2Agent = (calls?: FixtureCalls) =>
  fixtureAgent(calls, () => FIXTURE_TIME + 60_000, { ...FIXTURE_V2, deleteApprovers: [...FIXTURE_V2.deleteApprovers] });

/** A fixture (v1 unless told) as a plain object, changed by `edit`. */
function altered(
  edit: (doc: { $schemaVersion: unknown; head: { json: Record<string, any> }; messages: any[] }) => void,
  text = fixtureText,
): string {
  const doc = JSON.parse(text);
  edit(doc);
  return JSON.stringify(doc);
}

describe('snapshot fixture v1', () => {
  it('keeps loading: a paused run with a pending approval, an audit entry and its history', () => {
    const snap = deserialize(fixtureText);
    expect(Object.isFrozen(snap)).toBe(true);
    expect(Object.isFrozen(snap.messages[4]!.toolCalls![0]!.args)).toBe(true);
    expect(snap).toMatchObject({
      runId: FIXTURE_RUN_ID,
      agentName: FIXTURE_AGENT,
      state: 'awaitingApproval',
      status: 'awaitingApproval',
      stopReason: 'awaiting_approval',
      turns: 1,
      version: 5,
      createdAt: FIXTURE_TIME,
    });
    expect(snap.messages.slice(0, 4)).toEqual(fixtureHistory);
    expect(snap.pendingApprovals).toEqual([
      expect.objectContaining({
        toolCallId: 'call_delete_1',
        toolName: 'delete_file',
        args: { path: '/srv/reports/q3-draft.pdf' },
        expiresAt: FIXTURE_TIME + 86_400_000,
      }),
    ]);
    expect(snap.audit).toEqual([
      expect.objectContaining({ toolName: 'read_file', source: 'rule', ruleId: 'reads-are-fine' }),
    ]);
  });

  it('re-serializes to the same document, as the current version', () => {
    expect(CURRENT_SCHEMA_VERSION).toBe(2);
    expect(JSON.parse(serialize(deserialize(fixtureText)))).toEqual({ ...JSON.parse(fixtureText), $schemaVersion: 2 });
  });

  it('resumes with the matching agent: the approved delete runs once, the earlier read does not run again', async () => {
    const calls: FixtureCalls = { read: [], deleted: [] };
    const agent = fixtureAgent(calls, () => FIXTURE_TIME + 60_000);
    const snap = deserialize(fixtureText);
    const done = await agent.execute(
      withApprovalResponse(
        snap,
        { approvalId: snap.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
        { agent },
      ),
    );
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Deleted /srv/reports/q3-draft.pdf.');
    expect(calls.read).toEqual([]);
    expect(calls.deleted).toHaveLength(1);
    expect(calls.deleted[0]!.input).toEqual({ path: '/srv/reports/q3-draft.pdf' });
    expect(calls.deleted[0]!.ctx.idempotencyKey).toBe(`${FIXTURE_RUN_ID}:call_delete_1`);
    expect(done.messages.filter((message) => message.role === 'tool').map((message) => message.toolCallId)).toEqual([
      'call_read_1',
      'call_delete_1',
    ]);
  });
});

describe('snapshot fixture v2', () => {
  const v2 = /^v2\./;

  it('keeps loading: the pending request and the audit carry v2 signatures over approvers, rule and expiry', () => {
    const snap = deserialize(fixtureV2Text);
    expect(snap).toMatchObject({
      runId: FIXTURE_RUN_ID_V2,
      agentName: FIXTURE_AGENT,
      status: 'awaitingApproval',
      version: 5,
    });
    expect(snap.pendingApprovals).toEqual([
      expect.objectContaining({
        toolName: 'delete_file',
        approvers: ['alice', 'bob'],
        ruleId: 'deletes-need-an-owner',
        expiresAt: FIXTURE_TIME + 86_400_000,
        signature: expect.stringMatching(v2),
      }),
    ]);
    expect(snap.audit).toEqual([
      expect.objectContaining({ toolName: 'read_file', source: 'rule', signature: expect.stringMatching(v2) }),
    ]);
  });

  it('re-serializes to the same document while v2 is the current version', () => {
    expect(JSON.parse(serialize(deserialize(fixtureV2Text)))).toEqual(JSON.parse(fixtureV2Text));
  });

  it('resumes with the matching agent and secret: only a named approver may approve, and the delete runs once', async () => {
    const calls: FixtureCalls = { read: [], deleted: [] };
    const agent = v2Agent(calls);
    const snap = deserialize(fixtureV2Text);
    const request = snap.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(
        snap,
        { approvalId: request.approvalId, approved: true, approvedBy: 'mallory', signature: request.signature! },
        { agent },
      ),
    ).toThrow(ApproverNotAllowedError);
    const done = await agent.execute(
      withApprovalResponse(
        snap,
        { approvalId: request.approvalId, approved: true, approvedBy: 'bob', signature: request.signature! },
        { agent },
      ),
    );
    expect(done.status).toBe('completed');
    expect(calls.read).toEqual([]);
    expect(calls.deleted.map((call) => call.input)).toEqual([{ path: '/srv/reports/q3-draft.pdf' }]);
    expect(done.audit.at(-1)).toMatchObject({ by: 'bob', signature: expect.stringMatching(v2) });
  });

  it('refuses a v2 request altered in storage, also when the envelope claims version 1 (no downgrade)', async () => {
    const calls: FixtureCalls = { read: [], deleted: [] };
    const agent = v2Agent(calls);
    for (const version of [2, 1]) {
      const alterations: ((request: Record<string, any>) => void)[] = [
        (request) => delete request['approvers'],
        (request) => (request['expiresAt'] += 365 * 86_400_000),
        (request) => (request['signature'] = String(request['signature']).slice(3)),
      ];
      for (const alter of alterations) {
        const snap = deserialize(
          altered((doc) => {
            doc.$schemaVersion = version;
            alter(doc.head.json['pendingApprovals'][0]);
          }, fixtureV2Text),
        );
        const request = snap.pendingApprovals[0]!;
        expect(() =>
          withApprovalResponse(
            snap,
            { approvalId: request.approvalId, approved: true, approvedBy: 'mallory', signature: request.signature! },
            { agent },
          ),
        ).toThrow(ApprovalSignatureError);
      }
    }
    expect(calls.deleted).toEqual([]);
  });
});

describe('snapshot fixture v2 with every message part', () => {
  const partsText = readFileSync(new URL('../fixtures/snapshots/v2-parts.json', import.meta.url), 'utf8');
  const modelOf = (seen: ModelRequest[]): Model => ({
    generate: async (request) => {
      seen.push(request);
      return {
        message: { role: 'assistant', content: 'Deleted /srv/reports/q3-draft.pdf.' },
        usage: { inputTokens: 1200, outputTokens: 12 },
      };
    },
  });

  it('keeps loading: text, reasoning with signature and encrypted content, files by data and url, tool results, provider metadata and usage', () => {
    const snap = deserialize(partsText);
    expect(snap.runId).toBe(FIXTURE_RUN_ID_PARTS);
    expect(snap.messages.slice(0, partsHistory.length)).toEqual(partsHistory);
    expect(snap.messages.at(-1)).toEqual({
      ...partsAnswer,
      usage: { inputTokens: 1024, outputTokens: 96, reasoningTokens: 60 },
      finishReason: 'tool-calls',
    });
    expect(snap.usage).toEqual({ inputTokens: 1024, outputTokens: 96, reasoningTokens: 60 });
    expect(JSON.parse(serialize(snap))).toEqual(JSON.parse(partsText));
  });

  it('refuses a malformed part, provider metadata or usage with a SnapshotError naming its path', () => {
    const refused = (edit: Parameters<typeof altered>[0]) => thrown(() => deserialize(altered(edit, partsText)));
    expect(refused((doc) => (doc.messages[1].parts[2].type = 'video'))).toMatchObject({
      path: 'messages[1].parts[2].type',
    });
    expect(refused((doc) => delete doc.messages[1].parts[1].mediaType)).toMatchObject({
      path: 'messages[1].parts[1].mediaType',
    });
    expect(refused((doc) => (doc.messages[7].parts[1].signature = 3))).toMatchObject({
      path: 'messages[7].parts[1].signature',
    });
    expect(refused((doc) => (doc.messages[3].parts[0].outcome = 'maybe'))).toMatchObject({
      path: 'messages[3].parts[0].outcome',
    });
    expect(refused((doc) => (doc.messages[2].parts[0].providerMetadata = { anthropic: 'x' }))).toMatchObject({
      path: 'messages[2].parts[0].providerMetadata.anthropic',
    });
    expect(refused((doc) => (doc.messages[2].toolCalls[0].providerMetadata = []))).toMatchObject({
      path: 'messages[2].toolCalls[0].providerMetadata',
    });
    expect(refused((doc) => (doc.messages[7].usage = { inputTokens: -1 }))).toMatchObject({
      path: 'messages[7].usage',
    });
    expect((refused((doc) => (doc.messages[1].parts[2].type = 'video')) as Error).message).toBe(
      'Invalid snapshot: messages[1].parts[2].type must be text, reasoning, file or tool-result.',
    );
  });

  it('resumes in a fresh agent and hands the model every part back unchanged, with the new results marked ok', async () => {
    const seen: ModelRequest[] = [];
    const calls: FixtureCalls = { read: [], deleted: [] };
    const agent = fixtureAgent(
      calls,
      () => FIXTURE_TIME + 60_000,
      { ...FIXTURE_V2, deleteApprovers: [...FIXTURE_V2.deleteApprovers] },
      undefined,
      modelOf(seen),
    );
    const snap = deserialize(partsText);
    const request = snap.pendingApprovals[0]!;
    const done = await agent.execute(
      withApprovalResponse(
        snap,
        { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
        { agent },
      ),
    );
    expect(done.status).toBe('completed');
    const sent = seen[0]!.messages;
    expect(JSON.stringify(sent.slice(0, snap.messages.length))).toBe(JSON.stringify(snap.messages));
    expect(sent.slice(snap.messages.length).map((message) => message.parts)).toEqual([
      [{ type: 'tool-result', toolCallId: 'call_read_1', toolName: 'read_file', outcome: 'ok' }],
      [{ type: 'tool-result', toolCallId: 'call_delete_1', toolName: 'delete_file', outcome: 'ok' }],
    ]);
    expect(done.usage).toEqual({ inputTokens: 2224, outputTokens: 108, reasoningTokens: 60 });
  });
});

describe('a request signed the v1 way, read under a decision secret', () => {
  const secret = FIXTURE_V2.decisionSecret;
  /** v1.json with its pending request signed as countersign signed requests before format 2. */
  function signedV1() {
    return deserialize(
      altered((doc) => {
        const request = doc.head.json['pendingApprovals'][0];
        const text = [
          'countersign.v1',
          doc.head.json['runId'],
          request.approvalId,
          request.toolCallId,
          request.toolName,
          request.argsDigest,
        ].join('\n');
        request.signature = createHmac('sha256', secret).update(text).digest('base64url');
      }),
    );
  }

  it('may be denied but not approved: its signature never bound approvers, rule or expiry', async () => {
    const calls: FixtureCalls = { read: [], deleted: [] };
    const agent = fixtureAgent(calls, () => FIXTURE_TIME + 60_000, { decisionSecret: secret });
    const snap = signedV1();
    const request = snap.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(
        snap,
        { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
        { agent },
      ),
    ).toThrow(/older countersign/);
    const done = await agent.execute(
      withApprovalResponse(
        snap,
        { approvalId: request.approvalId, approved: false, approvedBy: 'alice', signature: request.signature! },
        { agent },
      ),
    );
    expect(done.status).toBe('completed');
    expect(calls.deleted).toEqual([]);
  });
});

describe('deserialize refusals', () => {
  it('refuses an unknown $schemaVersion with a SnapshotError naming the supported versions', () => {
    for (const version of [3, 0, '1', undefined]) {
      const error = thrown(() => deserialize(altered((doc) => (doc.$schemaVersion = version))));
      expect(error).toBeInstanceOf(SnapshotError);
      expect(error).toMatchObject({ code: 'invalid_snapshot', path: '$schemaVersion', supportedVersions: [1, 2] });
      expect((error as Error).message).toMatch(/reads versions 1, 2/);
    }
    expect(SUPPORTED_SCHEMA_VERSIONS).toEqual([1, 2]);
  });

  it('refuses a malformed head field with a SnapshotError naming its path', () => {
    const error = thrown(() => deserialize(altered((doc) => (doc.head.json['pendingApprovals'][0].toolName = 7))));
    expect(error).toBeInstanceOf(SnapshotError);
    expect(error).toMatchObject({ path: 'pendingApprovals.0.toolName', supportedVersions: [1, 2] });
    expect((error as Error).message).toContain('pendingApprovals.0.toolName');

    expect(thrown(() => deserialize(altered((doc) => (doc.head.json['status'] = 'paused'))))).toMatchObject({
      path: 'status',
    });
    expect(thrown(() => deserialize(altered((doc) => delete doc.head.json['runId'])))).toMatchObject({ path: 'runId' });
    expect(thrown(() => deserialize(altered((doc) => (doc.head.json['toolCalls'][1].status = 'done'))))).toMatchObject({
      path: 'toolCalls.1.status',
    });
  });

  it('refuses a malformed message with a SnapshotError naming its path', () => {
    expect(thrown(() => deserialize(altered((doc) => (doc.messages[2].content = 5))))).toMatchObject({
      path: 'messages[2].content',
    });
    expect(thrown(() => deserialize(altered((doc) => (doc.messages[0].role = 'robot'))))).toMatchObject({
      path: 'messages[0].role',
    });
    expect(thrown(() => deserialize(altered((doc) => (doc.messages[4].toolCalls[1] = { name: 'x' }))))).toMatchObject({
      path: 'messages[4].toolCalls[1]',
    });
    expect(thrown(() => deserialize(altered((doc) => (doc.messages = {} as never))))).toMatchObject({
      path: 'messages',
    });
  });

  it('refuses text that is not JSON or not an envelope', () => {
    expect(() => deserialize('{not json')).toThrow(SnapshotError);
    expect(() => deserialize('{not json')).toThrow(/not JSON/);
    expect(() => deserialize('null')).toThrow(/expected an object with \$schemaVersion/);
    expect(thrown(() => deserialize(JSON.stringify({ $schemaVersion: 1, head: 'x', messages: [] })))).toBeInstanceOf(
      SnapshotError,
    );
  });

  it('accepts the parsed object as well as the string', () => {
    expect(deserialize(JSON.parse(fixtureText))).toEqual(deserialize(fixtureText));
  });
});

describe('serialize', () => {
  it('keeps the history plain JSON and carries Date, Map, Set and BigInt in the head through superjson', async () => {
    const snap = deserialize(fixtureText);
    // An approver's edit may carry rich values; they survive the round trip as the same types.
    const agent = fixtureAgent();
    const rich = { path: '/x', when: new Date(FIXTURE_TIME), tags: new Set(['a']), sizes: new Map([['a', 1n]]) };
    const edited = withApprovalResponse(
      snap,
      { approvalId: snap.pendingApprovals[0]!.approvalId, approved: true, args: { path: '/x' } },
      { agent },
    );
    const withRich = {
      ...edited,
      toolCalls: edited.toolCalls.map((record) =>
        record.toolCallId === 'call_delete_1' ? { ...record, editedArgs: rich } : record,
      ),
    };
    const back = deserialize(serialize(withRich));
    expect(back.toolCalls[1]!.editedArgs).toEqual(rich);
    const doc = JSON.parse(serialize(withRich));
    expect(doc.messages).toEqual(JSON.parse(JSON.stringify(snap.messages)));
    expect(doc.$schemaVersion).toBe(2);
  });

  it('sees a Date added under a frozen part of the head after that part was serialized as plain JSON', () => {
    const snap = deserialize(fixtureText);
    const editedArgs: Record<string, unknown> = { path: '/x' };
    // The record is frozen, the arguments under it are not: what was plain JSON at the first serialize may not be at the next.
    const record = Object.freeze({ ...snap.toolCalls[0]!, editedArgs });
    const withEdit: AgentSnapshot = { ...snap, toolCalls: Object.freeze([record, ...snap.toolCalls.slice(1)]) };
    expect(deserialize(serialize(withEdit)).toolCalls[0]!.editedArgs).toEqual({ path: '/x' });
    editedArgs['when'] = new Date(FIXTURE_TIME);
    expect(deserialize(serialize(withEdit)).toolCalls[0]!.editedArgs).toEqual({
      path: '/x',
      when: new Date(FIXTURE_TIME),
    });
  });
});

describe('the state type', () => {
  it('MachineState is read from the machine: exactly its states', () => {
    expectTypeOf<MachineState>().toEqualTypeOf<
      | 'idle'
      | 'callingModel'
      | 'evaluatingTools'
      | 'executingTools'
      | 'awaitingApproval'
      | 'completed'
      | 'failed'
      | 'cancelled'
    >();
    expectTypeOf<AgentSnapshot['state']>().toEqualTypeOf<MachineState>();
  });
});

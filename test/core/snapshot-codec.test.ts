import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CURRENT_SCHEMA_VERSION,
  SUPPORTED_SCHEMA_VERSIONS,
  SnapshotError,
  deserialize,
  serialize,
  withApprovalResponse,
} from 'countersign';
import { FIXTURE_AGENT, FIXTURE_RUN_ID, FIXTURE_TIME, fixtureAgent, fixtureHistory, type FixtureCalls } from '../support/snapshot-fixture-agent.js';

const fixtureText = readFileSync(new URL('../fixtures/snapshots/v1.json', import.meta.url), 'utf8');

function thrown(body: () => unknown): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** The fixture as a plain object, changed by `edit`. */
function altered(edit: (doc: { $schemaVersion: unknown; head: { json: Record<string, any> }; messages: any[] }) => void): string {
  const doc = JSON.parse(fixtureText);
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
      expect.objectContaining({ toolCallId: 'call_delete_1', toolName: 'delete_file', args: { path: '/srv/reports/q3-draft.pdf' }, expiresAt: FIXTURE_TIME + 86_400_000 }),
    ]);
    expect(snap.audit).toEqual([expect.objectContaining({ toolName: 'read_file', source: 'rule', ruleId: 'reads-are-fine' })]);
  });

  it('re-serializes to the same document, as the current version', () => {
    expect(CURRENT_SCHEMA_VERSION).toBe(2);
    expect(JSON.parse(serialize(deserialize(fixtureText)))).toEqual({ ...JSON.parse(fixtureText), $schemaVersion: 2 });
  });

  it('resumes with the matching agent: the approved delete runs once, the earlier read does not run again', async () => {
    const calls: FixtureCalls = { read: [], deleted: [] };
    const agent = fixtureAgent(calls, () => FIXTURE_TIME + 60_000);
    const snap = deserialize(fixtureText);
    const done = await agent.execute(withApprovalResponse(snap, { approvalId: snap.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' }));
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Deleted /srv/reports/q3-draft.pdf.');
    expect(calls.read).toEqual([]);
    expect(calls.deleted).toHaveLength(1);
    expect(calls.deleted[0]!.input).toEqual({ path: '/srv/reports/q3-draft.pdf' });
    expect(calls.deleted[0]!.ctx.idempotencyKey).toBe(`${FIXTURE_RUN_ID}:call_delete_1`);
    expect(done.messages.filter((message) => message.role === 'tool').map((message) => message.toolCallId)).toEqual(['call_read_1', 'call_delete_1']);
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

    expect(thrown(() => deserialize(altered((doc) => (doc.head.json['status'] = 'paused'))))).toMatchObject({ path: 'status' });
    expect(thrown(() => deserialize(altered((doc) => delete doc.head.json['runId'])))).toMatchObject({ path: 'runId' });
    expect(thrown(() => deserialize(altered((doc) => (doc.head.json['toolCalls'][1].status = 'done'))))).toMatchObject({ path: 'toolCalls.1.status' });
  });

  it('refuses a malformed message with a SnapshotError naming its path', () => {
    expect(thrown(() => deserialize(altered((doc) => (doc.messages[2].content = 5))))).toMatchObject({ path: 'messages[2].content' });
    expect(thrown(() => deserialize(altered((doc) => (doc.messages[0].role = 'robot'))))).toMatchObject({ path: 'messages[0].role' });
    expect(thrown(() => deserialize(altered((doc) => (doc.messages[4].toolCalls[1] = { name: 'x' }))))).toMatchObject({ path: 'messages[4].toolCalls[1]' });
    expect(thrown(() => deserialize(altered((doc) => (doc.messages = {} as never))))).toMatchObject({ path: 'messages' });
  });

  it('refuses text that is not JSON or not an envelope', () => {
    expect(() => deserialize('{not json')).toThrow(SnapshotError);
    expect(() => deserialize('{not json')).toThrow(/not JSON/);
    expect(() => deserialize('null')).toThrow(/expected an object with \$schemaVersion/);
    expect(thrown(() => deserialize(JSON.stringify({ $schemaVersion: 1, head: 'x', messages: [] })))).toBeInstanceOf(SnapshotError);
  });

  it('accepts the parsed object as well as the string', () => {
    expect(deserialize(JSON.parse(fixtureText))).toEqual(deserialize(fixtureText));
  });
});

describe('serialize', () => {
  it('keeps the history plain JSON and carries Date, Map, Set and BigInt in the head through superjson', async () => {
    const snap = deserialize(fixtureText);
    // An approver's edit may carry rich values; they survive the round trip as the same types.
    fixtureAgent();
    const rich = { path: '/x', when: new Date(FIXTURE_TIME), tags: new Set(['a']), sizes: new Map([['a', 1n]]) };
    const edited = withApprovalResponse(snap, { approvalId: snap.pendingApprovals[0]!.approvalId, approved: true, args: { path: '/x' } });
    const withRich = { ...edited, toolCalls: edited.toolCalls.map((record) => (record.toolCallId === 'call_delete_1' ? { ...record, editedArgs: rich } : record)) };
    const back = deserialize(serialize(withRich));
    expect(back.toolCalls[1]!.editedArgs).toEqual(rich);
    const doc = JSON.parse(serialize(withRich));
    expect(doc.messages).toEqual(JSON.parse(JSON.stringify(snap.messages)));
    expect(doc.$schemaVersion).toBe(2);
  });
});

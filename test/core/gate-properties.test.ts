// Property of the gate: for random approver settings, responses (people under several spellings, approvals and
// denials, scopes) and storage edits, the tool runs exactly when the records cover it: with no edit, when allowed
// distinct people approved as the setting requires; with any edit, never.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deserialize, serialize, withApprovalResponse, type AgentSnapshot } from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

const decisionSecret = 'test-decision-secret-0123456789';
const people = ['ana', 'bo', 'cy', 'di'] as const;
const spell = [(name: string) => name, (name: string) => name.toUpperCase(), (name: string) => ` ${name} `];

const setting = fc.oneof(
  fc.record({ kind: fc.constant('approvers' as const), list: fc.subarray([...people], { minLength: 1 }) }),
  fc.record({
    kind: fc.constant('quorum' as const),
    required: fc.integer({ min: 2, max: 3 }),
    list: fc.subarray([...people], { minLength: 3 }),
  }),
);
const response = fc.record({
  person: fc.constantFrom(...people),
  spelling: fc.integer({ min: 0, max: spell.length - 1 }),
  approved: fc.boolean(),
  scope: fc.constantFrom('once' as const, 'session' as const, 'run' as const),
});
const storageEdit = fc.constantFrom('none', 'none', 'copy-vote', 'drop-vote', 'source-grant', 'by-other', 'add-voter');

/** An independent reading of what the responses should do: each person once, only listed people, first deny ends it. */
function expectedToRun(
  chosen: { kind: string; list: readonly string[]; required?: number },
  responses: readonly { person: string; approved: boolean }[],
): boolean {
  const approvals = new Set<string>();
  for (const { person, approved } of responses) {
    if (!chosen.list.includes(person)) continue;
    if (chosen.kind === 'approvers') return approved;
    if (approvals.has(person)) continue;
    if (!approved) return false;
    approvals.add(person);
    if (approvals.size >= chosen.required!) return true;
  }
  return false;
}

function edit(snapshot: AgentSnapshot, kind: string): AgentSnapshot | undefined {
  const envelope = JSON.parse(serialize(snapshot));
  const head = envelope.head.json;
  const entry = head.audit.at(-1);
  if (entry === undefined || entry.decision !== 'approved') return undefined;
  switch (kind) {
    case 'copy-vote':
      if (!entry.votes) return undefined;
      entry.votes.push({ ...entry.votes[0] });
      break;
    case 'drop-vote':
      if (!entry.votes) return undefined;
      entry.votes.shift();
      break;
    case 'source-grant':
      entry.source = 'grant';
      entry.grantId = 'grt_forged';
      break;
    case 'by-other':
      entry.by = 'mallory';
      break;
    case 'add-voter':
      if (!entry.votes) return undefined;
      entry.votes.push({ by: 'mallory', approved: true, at: entry.at });
      break;
    default:
      return undefined;
  }
  return deserialize(JSON.stringify(envelope));
}

describe('the gate, as a property', () => {
  it('a tool runs exactly when allowed distinct people approved it, and never after a storage edit', async () => {
    await fc.assert(
      fc.asyncProperty(
        setting,
        fc.array(response, { minLength: 1, maxLength: 6 }),
        storageEdit,
        async (chosen, responses, storage) => {
          const executions = newExecutions();
          const tool = recordingTool(
            'op',
            chosen.kind === 'approvers'
              ? { needsApproval: true, approvers: chosen.list }
              : { needsApproval: true, approvals: { required: chosen.required, from: chosen.list } },
            executions,
          );
          const agent = agentCalling([[{ name: 'op', args: { n: 1 } }]], { tools: [tool], decisionSecret });
          let snap = await agent.execute({ input: 'go', sessionId: 'prop' });
          const request = snap.pendingApprovals[0]!;
          for (const item of responses) {
            if (snap.pendingApprovals.length === 0) break;
            try {
              snap = withApprovalResponse(
                snap,
                {
                  approvalId: request.approvalId,
                  approved: item.approved,
                  approvedBy: spell[item.spelling]!(item.person),
                  signature: request.signature!,
                  scope: item.scope,
                },
                { agent },
              );
            } catch {
              // Refused responses (not allowed, a scope a vote may not take, a conflicting vote) change nothing.
            }
          }
          const edited = snap.pendingApprovals.length === 0 ? edit(snap, storage) : undefined;
          const outcome = await agent.execute(edited ?? snap).catch((error: unknown) => error);
          const ran = executions.count('op') === 1;
          if (edited !== undefined) {
            expect(ran).toBe(false);
            expect(outcome).toBeInstanceOf(Error);
          } else {
            const expected = expectedToRun(
              chosen,
              responses.filter((item) => chosen.kind === 'approvers' || item.scope === 'once'),
            );
            expect(ran).toBe(expected);
          }
          expect(executions.count('op')).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 150 },
    );
  });
});

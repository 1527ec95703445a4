import { describe, expect, it } from 'vitest';
import { suggestRules, type DecidedCall } from 'countersign';

const approved = (args: unknown, by = 'alice', extra: Partial<DecidedCall> = {}): DecidedCall => ({
  agentName: 'ops',
  toolName: 'read_log',
  decision: 'approved',
  source: 'human',
  by,
  args,
  ...extra,
});

const times = (n: number, make: (i: number) => DecidedCall) => Array.from({ length: n }, (_, i) => make(i));

describe('suggestRules', () => {
  it('proposes an allow rule after minApprovals approvals by people, none before', () => {
    const four = times(4, () => approved({ path: '/var/log/a' }));
    expect(suggestRules(four)).toEqual([]);
    const five = [...four, approved({ path: '/var/log/a' }, 'bob')];
    expect(suggestRules(five)).toEqual([
      expect.objectContaining({ agent: 'ops', tool: 'read_log', approvals: 5, approvedBy: ['alice', 'bob'] }),
    ]);
    expect(suggestRules(four, { minApprovals: 3 })).toHaveLength(1);
  });

  it('proposes nothing for a tool denied, dismissed or expired in the window', () => {
    const many = times(8, () => approved({ path: '/var/log/a' }));
    expect(suggestRules([...many, approved({}, 'bob', { decision: 'denied' })])).toEqual([]);
    expect(suggestRules([...many, approved({}, 'bob', { decision: 'denied', source: 'expiry' })])).toEqual([]);
    expect(suggestRules([...many, approved({}, 'bob', { decision: 'denied', source: 'dismissed' })])).toEqual([]);
    expect(suggestRules([...many, approved({ path: '/var/log/b' }, 'bob', { edited: true })])).toEqual([]);
  });

  it('counts only approvals by people: a rule or a grant is not evidence', () => {
    const byGrant = times(6, () => approved({ path: '/x' }, 'alice', { source: 'grant' }));
    expect(suggestRules(byGrant)).toEqual([]);
  });

  it('never proposes a rule for requests that named approvers or needed a quorum', () => {
    const many = times(6, () => approved({ path: '/var/log/a' }));
    expect(suggestRules([...many, approved({ path: '/var/log/a' }, 'alice', { approvers: ['alice'] })])).toEqual([]);
    const quorum = { required: 2, distinctPeople: true, excludeRequester: false, anyDenyDenies: true };
    expect(suggestRules([...many, approved({ path: '/var/log/a' }, 'alice', { quorum })])).toEqual([]);
  });

  it('never proposes a rule for a tool that is not grantable', () => {
    const many = times(6, () => approved({ path: '/var/log/a' }));
    expect(suggestRules(many, { grantable: (_agent, tool) => tool !== 'read_log' })).toEqual([]);
  });

  it('never proposes a rule for a tool whose name a rule would read as a glob', () => {
    expect(suggestRules(times(6, () => approved({}, 'alice', { toolName: 'read_*' })))).toEqual([]);
  });

  it('keeps agents and tools apart', () => {
    const ops = times(5, () => approved({ path: '/a' }));
    const other = times(5, () => approved({ path: '/a' }, 'alice', { agentName: 'other' }));
    const denied = approved({ path: '/a' }, 'alice', { agentName: 'other', decision: 'denied' });
    expect(suggestRules([...ops, ...other, denied]).map((s) => s.agent)).toEqual(['ops']);
  });

  it('pins an argument every call shared, globs a shared directory, leaves the rest unbounded', () => {
    const calls = times(5, (i) => approved({ path: `/var/log/app/${i}.log`, lines: 100, query: i % 2 ? 'x' : 'y' }));
    const [suggestion] = suggestRules(calls);
    expect(suggestion?.argsMatch).toEqual({ path: '/var/log/app/**', lines: 100 });
    expect(suggestion?.reason).toContain('within the arguments approved');
  });

  it('globs a shared name prefix when there is no directory', () => {
    const calls = times(5, (i) => approved({ env: `staging-${i}` }));
    expect(suggestRules(calls)[0]?.argsMatch).toEqual({ env: 'staging-*' });
  });

  it('says so when no argument could be bounded, or the arguments are unknown', () => {
    const calls = times(5, (i) => approved({ query: i % 2 ? 'x' : 'y' }));
    const [bare] = suggestRules(calls);
    expect(bare?.argsMatch).toBeUndefined();
    expect(bare?.reason).toContain('no argument could be bounded');
    const unknown = [...times(4, () => approved({ path: '/a' })), approved(undefined)];
    expect(suggestRules(unknown)[0]?.argsMatch).toBeUndefined();
  });

  it('never globs so wide that it says nothing, nor over a value with a wildcard', () => {
    const root = times(5, (i) => approved({ path: `/${i}` }));
    expect(suggestRules(root)[0]?.argsMatch).toBeUndefined();
    const starred = times(5, (i) => approved({ path: `/srv/*/${i}` }));
    expect(suggestRules(starred)[0]?.argsMatch).toBeUndefined();
  });
});

// `--rules FILE` reads rules with the stored-rule schema: whatever a rule store accepts (approvals, reminders,
// escalation) a rules file accepts too, and a problem still names the file, the rule and the fix.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRulesFile } from '../../src/cli/rules-file.js';

function rulesFile(rules: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'countersign-rules-')), 'rules.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
}

describe('readRulesFile', () => {
  it('reads quorum, reminder, escalation and decisions fields as a stored rule does', async () => {
    const rules = [
      {
        id: 'payments',
        tool: 'send_payment',
        action: 'ask',
        approvals: { required: 2, from: ['alice', 'bob', 'carol'] },
        remindAfterMs: 600_000,
        escalate: [{ afterMs: 1_800_000, to: ['dana'] }],
        decisions: ['approve', 'deny'],
      },
      { tool: 'search_*', action: 'allow' },
    ];
    expect(await readRulesFile(rulesFile(rules))).toEqual(rules);
  });

  it("names the file, the rule, the field and the fix for a bad reminder, a quorum that could never run, or a store's own field", async () => {
    const badReminder = rulesFile([{ action: 'allow' }, { action: 'ask', remindAfterMs: -5 }]);
    await expect(readRulesFile(badReminder)).rejects.toThrow(
      new RegExp(`^--rules ${badReminder}: rule 1 remindAfterMs .*; each rule is \\{.*"remindAfterMs"\\?`),
    );
    const impossible = rulesFile([{ action: 'ask', approvals: { required: 3, from: ['alice', 'bob'] } }]);
    await expect(readRulesFile(impossible)).rejects.toThrow(
      `--rules ${impossible}: rule 0 approvals names fewer voters in from than required approvals`,
    );
    const noDecision = rulesFile([{ action: 'ask', decisions: [] }]);
    await expect(readRulesFile(noDecision)).rejects.toThrow(
      new RegExp(`^--rules ${noDecision}: rule 0 decisions is empty, .*; each rule is \\{.*"decisions"\\?`),
    );
    const storeField = rulesFile([{ action: 'ask', agent: 'ops' }]);
    await expect(readRulesFile(storeField)).rejects.toThrow(
      `--rules ${storeField}: rule 0 has an unknown option agent`,
    );
  });
});

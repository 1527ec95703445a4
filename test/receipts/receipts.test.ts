// Decision receipts: every decision a runtime made with `receipts` records is signed with its Ed25519 key, and an
// exported audit checks out offline against the published keys, and fails on each kind of tampering.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createMemoryStore, createRuntime, defineTool, verifyAudit, type AuditProblem } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { ed25519, receiptWorld, SECRET, tampered } from './receipt-world.js';
import { countingAgent, recordingNotifier } from '../support/runtime-harness.js';
import { testAgent, thrown } from '../support/test-kit.js';

const codes = (problems: readonly AuditProblem[]) => problems.map(({ index, code }) => `${index}:${code}`);

describe('decision receipts', () => {
  it('signs each decision once, as stored, with the key id of the published key; the audit verifies', async () => {
    const { privateKey, publicKey } = ed25519();
    const world = await receiptWorld(privateKey);
    expect(world.keys.keys).toEqual([
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String) }),
    ]);
    expect(world.keys.keys[0]!.x).toBe((publicKey.export({ format: 'jwk' }) as { x: string }).x);
    expect(world.singles.status).toBe('completed');
    expect(world.singles.audit.map((entry) => [entry.decision, entry.by])).toEqual([
      ['approved', 'ana'],
      ['denied', 'bo'],
      ['approved', 'ana'],
    ]);
    for (const entry of [...world.singles.audit, ...world.quorum.audit]) {
      expect(entry.receipt?.keyId).toBe(world.keys.keys[0]!.kid);
      // The agent's own HMAC is kept beside the receipt (and the calls ran: the gate accepted it).
      expect(entry.signature).toMatch(/^v2\./);
    }
    expect(world.quorum.audit[0]!.votes?.map((vote) => vote.by)).toEqual(['ana', 'bo']);
    expect(verifyAudit([world.singles, world.quorum], world.keys)).toEqual({
      ok: true,
      runs: 2,
      entries: 4,
      problems: [],
    });
  });

  it('fails an entry changed after signing, naming it', async () => {
    const world = await receiptWorld(ed25519().privateKey);
    const flipped = tampered(world.singles, (audit) =>
      audit.map((entry, index) => (index === 1 ? { ...entry, decision: 'approved' as const } : entry)),
    );
    const renamed = tampered(world.singles, (audit) =>
      audit.map((entry, index) => (index === 0 ? { ...entry, by: 'the-cfo' } : entry)),
    );
    expect(codes(verifyAudit(flipped, world.keys).problems)).toEqual(['1:bad_signature']);
    expect(codes(verifyAudit(renamed, world.keys).problems)).toEqual(['0:bad_signature']);
  });

  it('fails an entry removed (first, middle) or entries reordered', async () => {
    const world = await receiptWorld(ed25519().privateKey);
    const middle = tampered(world.singles, (audit) => audit.filter((_, index) => index !== 1));
    expect(codes(verifyAudit(middle, world.keys).problems)).toEqual(['1:broken_chain', '1:bad_signature']);
    const first = tampered(world.singles, (audit) => audit.slice(1));
    expect(codes(verifyAudit(first, world.keys).problems)).toEqual([
      '0:broken_chain',
      '0:bad_signature',
      '1:bad_signature',
    ]);
    const swapped = tampered(world.singles, ([a, b, c]) => [b!, a!, c!]);
    expect(codes(verifyAudit(swapped, world.keys).problems)).toEqual([
      '0:broken_chain',
      '0:bad_signature',
      '1:broken_chain',
      '1:bad_signature',
      '2:broken_chain',
    ]);
  });

  it('fails a vote copied within a decision, and a decision copied into another run', async () => {
    const world = await receiptWorld(ed25519().privateKey);
    const doubled = tampered(world.quorum, ([entry]) => [{ ...entry!, votes: [...entry!.votes!, entry!.votes![0]!] }]);
    expect(codes(verifyAudit(doubled, world.keys).problems)).toEqual(['0:duplicate_vote', '0:bad_signature']);
    const moved = tampered(world.singles, (audit) => [...audit, world.quorum.audit[0]!]);
    expect(codes(verifyAudit(moved, world.keys).problems)).toEqual(['3:broken_chain', '3:bad_signature']);
  });

  it('fails a receipt taken off, a key not published, and a receipt re-signed by another key under the same id', async () => {
    const world = await receiptWorld(ed25519().privateKey);
    const stripped = tampered(world.singles, (audit) =>
      audit.map((entry, index) => {
        if (index !== 2) return entry;
        const { receipt: _receipt, ...unsigned } = entry;
        return unsigned;
      }),
    );
    expect(codes(verifyAudit(stripped, world.keys).problems)).toEqual(['2:unsigned']);
    expect(codes(verifyAudit(world.singles, { keys: [] }).problems)).toEqual([
      '0:unknown_key',
      '1:unknown_key',
      '2:unknown_key',
    ]);
    // Someone's own key published under the real key id: the signatures were made by the real key, so none verifies.
    const impostor = (createPublicKey(ed25519().privateKey).export({ format: 'jwk' }) as { x: string }).x;
    const swappedKey = { keys: [{ ...world.keys.keys[0]!, x: impostor }] };
    expect(codes(verifyAudit(world.singles, swappedKey).problems)).toEqual([
      '0:bad_signature',
      '1:bad_signature',
      '2:bad_signature',
    ]);
  });

  it('rotates: a new key signs new decisions, the old one stays published and its receipts keep verifying', async () => {
    const store = createMemoryStore();
    const old = ed25519();
    const before = await receiptWorld(old.privateKey, store);
    const next = ed25519();
    const after = await receiptWorld(next.privateKey, store, {
      receipts: { privateKey: next.privateKey, retiredKeys: [old.publicKey] },
    });
    expect(after.keys.keys.map((key) => key.kid)).toEqual([
      after.singles.audit[0]!.receipt!.keyId,
      before.singles.audit[0]!.receipt!.keyId,
    ]);
    expect(verifyAudit([before.singles, after.singles], after.keys).ok).toBe(true);
    const onlyNew = { keys: [after.keys.keys[0]!] };
    expect(verifyAudit(before.singles, onlyNew).problems.map((problem) => problem.code)).toEqual([
      'unknown_key',
      'unknown_key',
      'unknown_key',
    ]);
  });

  it('leaves decisions unsigned without receipts, and never signs an entry another process stored unsigned', async () => {
    const store = createMemoryStore();
    const counting = countingAgent({ name: 'payer', calls: 2, decisionSecret: SECRET });
    const plain = createRuntime({ agents: [counting.agent], store });
    const run = await plain.start('payer', { input: 'pay two' });
    const first = run.pendingApprovals[0]!;
    await plain.respond(run.runId, {
      approvalId: first.approvalId,
      approved: true,
      approvedBy: 'ana',
      signature: first.signature!,
    });
    expect(plain.receiptKeys).toBeUndefined();
    const signing = createRuntime({ agents: [counting.agent], store, receipts: { privateKey: ed25519().privateKey } });
    const second = (await signing.get(run.runId)).pendingApprovals[0]!;
    await signing.respond(run.runId, {
      approvalId: second.approvalId,
      approved: true,
      approvedBy: 'bo',
      signature: second.signature!,
    });
    const audit = (await signing.get(run.runId)).audit;
    expect(audit.map((entry) => entry.receipt === undefined)).toEqual([true, false]);
    // The receipt of the second entry is linked to an unsigned one: only the unsigned entry is reported.
    expect(codes(verifyAudit({ ...run, audit }, signing.receiptKeys).problems)).toEqual(['0:unsigned']);
  });

  it('refuses a key that cannot sign receipts, naming the fix', () => {
    const agent = countingAgent().agent;
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(thrown(() => createRuntime({ agents: [agent], receipts: { privateKey: rsa } }))).toSatisfy(
      (error) => error instanceof ConfigError && /Ed25519/.test(error.message),
    );
    const { publicKey } = ed25519();
    expect(thrown(() => createRuntime({ agents: [agent], receipts: { privateKey: publicKey } }))).toSatisfy(
      (error) => error instanceof ConfigError && /private half/.test(error.message),
    );
    expect(
      thrown(() => createRuntime({ agents: [agent], receipts: { privateKey: 'pem text' as never } })),
    ).toBeInstanceOf(ConfigError);
  });

  it('refuses an export or key set of the wrong shape with a ConfigError', async () => {
    expect(thrown(() => verifyAudit({ runId: 'r' }, { keys: [] }))).toBeInstanceOf(ConfigError);
    expect(thrown(() => verifyAudit([], { nope: true }))).toBeInstanceOf(ConfigError);
    expect(thrown(() => verifyAudit([], { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '!!', kid: 'k' }] }))).toBeInstanceOf(
      ConfigError,
    );
  });
});

describe('receipts beyond the store', () => {
  it('are on the decisions announced to notifiers, as stored: a copy kept elsewhere shows an export cut short', async () => {
    const notifier = recordingNotifier();
    const world = await receiptWorld(ed25519().privateKey, undefined, { notifier });
    const announced = notifier.events.flatMap((event) =>
      event.type === 'approval-resolved' && event.runId === world.singles.runId ? [event.entry] : [],
    );
    expect(announced).toEqual(world.singles.audit);
    const cut = { ...world.singles, audit: world.singles.audit.slice(0, 2) };
    expect(verifyAudit(cut, world.keys).ok).toBe(true);
    expect(announced.length).toBeGreaterThan(cut.audit.length);
  });
});

describe('receipts on decisions made while a run executes', () => {
  it('a rule that allows a call: the run start returns and the store keep the same receipt', async () => {
    const tool = defineTool({
      name: 'deploy',
      description: 'Deploy',
      input: z.object({ env: z.string() }),
      needsApproval: true,
      execute: async ({ env }) => `deployed ${env}`,
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('deploy', { env: 'staging' }),
    );
    const agent = testAgent({
      name: 'deployer',
      tools: [tool],
      model,
      policy: { rules: [{ tool: 'deploy', action: 'allow' }] },
    });
    const runtime = createRuntime({ agents: [agent], receipts: { privateKey: ed25519().privateKey } });
    const done = await runtime.start('deployer', { input: 'deploy' });
    expect(done.status).toBe('completed');
    expect(done.audit).toEqual([expect.objectContaining({ source: 'rule', receipt: expect.any(Object) })]);
    expect(done.audit).toEqual((await runtime.get(done.runId)).audit);
    expect(verifyAudit(JSON.parse(JSON.stringify(done)), runtime.receiptKeys).ok).toBe(true);
  });
});

// Runs whose decisions are signed with receipts: three single decisions on one run and a quorum on another, so each
// kind of tampering has entries to work on.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  createRuntime,
  type AuditEntry,
  type ReceiptKeySet,
  type Runtime,
  type RuntimeOptions,
  type SnapshotStore,
} from 'countersign';
import { runView, type RunView } from 'countersign/http';
import { countingAgent } from '../support/runtime-harness.js';

export const SECRET = 'receipts-decision-secret-0123456789';

export function ed25519(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

export interface ReceiptWorld {
  readonly runtime: Runtime;
  readonly keys: ReceiptKeySet;
  /** A run of three calls: approved, denied, approved. */
  readonly singles: RunView;
  /** A run of one call approved by two of three voters. */
  readonly quorum: RunView;
}

/** Answers every pending call of a run in turn: approve, deny, approve, ... */
async function decideAll(runtime: Runtime, runId: string): Promise<void> {
  for (let turn = 0; ; turn++) {
    const run = await runtime.get(runId);
    const request = run.pendingApprovals[0];
    if (request === undefined) return;
    await runtime.respond(runId, {
      approvalId: request.approvalId,
      approved: turn % 2 === 0,
      approvedBy: turn % 2 === 0 ? 'ana' : 'bo',
      ...(request.signature === undefined ? {} : { signature: request.signature }),
      ...(turn % 2 === 0 ? {} : { reason: 'not this one' }),
    });
  }
}

export async function receiptWorld(
  privateKey: KeyObject,
  store?: SnapshotStore,
  more: Partial<RuntimeOptions> = {},
): Promise<ReceiptWorld> {
  const singles = countingAgent({ name: 'payer', calls: 3, decisionSecret: SECRET });
  const voting = countingAgent({
    name: 'voted',
    approvals: { required: 2, from: ['ana', 'bo', 'cy'] },
    decisionSecret: SECRET,
  });
  const runtime = createRuntime({
    agents: [singles.agent, voting.agent],
    ...(store === undefined ? {} : { store }),
    receipts: { privateKey },
    ...more,
  });
  const first = await runtime.start('payer', { input: 'pay three' });
  await decideAll(runtime, first.runId);
  const second = await runtime.start('voted', { input: 'pay', requestedBy: 'cy' });
  const request = second.pendingApprovals[0]!;
  for (const voter of ['ana', 'bo'])
    await runtime.respond(second.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: voter,
      signature: request.signature!,
    });
  return {
    runtime,
    keys: runtime.receiptKeys!,
    singles: JSON.parse(JSON.stringify(runView(await runtime.get(first.runId)))),
    quorum: JSON.parse(JSON.stringify(runView(await runtime.get(second.runId)))),
  };
}

/** A copy of a run view with its audit changed by `edit`: what someone with write access to storage or the file did. */
export function tampered(view: RunView, edit: (audit: AuditEntry[]) => AuditEntry[]): RunView {
  const copy = JSON.parse(JSON.stringify(view)) as RunView;
  return { ...copy, audit: edit([...copy.audit]) };
}

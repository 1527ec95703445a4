// The gate before every tool runs: from the signed records alone, re-derive that this exact call is covered. Whatever
// path decided (a person, a quorum, run memory, a grant, a rule), and whatever the decision step believed, a call runs
// only when its decision entry, read here, proves it may.
import { GRANT_ALTERED_OR_OTHER_SECRET, SNAPSHOT_ALTERED_OR_OTHER_SECRET } from './signature-mismatch.js';
import { ApprovalSignatureError, CallNotCoveredError } from '../../errors.js';
import { currentToolCalls } from '../../run/current-tool-calls.js';
import { decisionSignatureOf } from '../decision-signature.js';
import { digestOf } from '../../run/digest.js';
import { grantSignatureHolds, useKeyOf, useSignatureHolds } from '../../policy/grants/grant-signature.js';
import type { GrantStore } from '../../ports/grant-store.js';
import { quorumOptionsOf, resolveQuorum } from '../../policy/quorum.js';
import { type RunGrant, runGrantors } from '../run-memory.js';
import type { AuditEntry, Quorum, ToolCall, ToolCallRecord } from '../../run/types.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import { samePerson } from './person-name.js';
import { tallyVotes, voteChainProblem } from './vote-count.js';
import { type ApproverTarget, type DeciderConfig, mayDecide, voteRefusal } from './who-may-decide.js';

/** Sources that stand in for a person: what they approved, a person must have been allowed to approve. */
const PERSONAL = new Set<AuditEntry['source']>(['human', 'memory', 'grant']);

/**
 * The quorum the decided call needs: the one its entry recorded, else the one its tool or configured rule names
 * today (a call put to a person under `approvals` needs it, whichever entry claims to approve it).
 */
function quorumOf(config: DeciderConfig, entry: AuditEntry): Quorum | undefined {
  if (entry.quorum !== undefined) return entry.quorum;
  const tool = config.tools.get(entry.toolName);
  return resolveQuorum(quorumOptionsOf(config.settings.rules.find(entry.ruleId), tool ?? {}));
}

/** Why the votes of `entry` do not make its quorum: signatures, distinct allowed voters, count. */
function quorumProblem(
  config: DeciderConfig,
  run: AgentSnapshot,
  entry: AuditEntry,
  target: ApproverTarget,
  quorum: Quorum,
  secret: string | undefined,
): string | undefined {
  const votes = entry.votes;
  if (votes === undefined) return `it needs ${quorum.required} approvals and its decision carries no votes`;
  if (secret !== undefined && entry.approvalId !== undefined) {
    const problem = voteChainProblem(secret, run, entry.approvalId, votes);
    if (problem !== undefined) return problem;
  }
  // Counted as every surface counts them (each person once), over the approvals of people allowed to vote.
  const allowed = votes.filter(
    (vote) =>
      vote.approved &&
      voteRefusal(config, run, target, quorum, vote.by) === undefined &&
      mayDecide(config, target, vote.by),
  );
  const { approvals } = tallyVotes(quorum, allowed, run.requestedBy);
  return approvals >= quorum.required
    ? undefined
    : `it needs ${quorum.required} approvals from distinct allowed voters and its votes hold ${approvals}`;
}

/**
 * Why the approving decision `entry` does not cover its call, or undefined when it does: a person's decision must be
 * by someone allowed to decide it; a call that needs a quorum is covered only by the votes of that many distinct
 * allowed people (never by run memory or a grant, which are one person's word); run memory must come from a signed
 * run-wide approval of that person in this run; a grant's granter must be allowed to decide the call. With a secret
 * the entry's own signature (checked before this) vouches for every field read here, and votes are checked as a
 * signed chain.
 */
function coverageProblem(
  config: DeciderConfig,
  run: AgentSnapshot,
  entry: AuditEntry,
  secret: string | undefined,
  lookup: TurnLookup,
): string | undefined {
  if (entry.decision !== 'approved') return 'its decision is a denial';
  if (!PERSONAL.has(entry.source)) {
    return entry.source === 'rule' || entry.source === 'tool' || entry.source === 'default'
      ? undefined
      : `a ${entry.source} decision never approves a call`;
  }
  const target: ApproverTarget = {
    toolName: entry.toolName,
    ruleId: entry.ruleId,
    approvers: entry.approvers,
    history: entry.history,
  };
  const quorum = quorumOf(config, entry);
  if (quorum !== undefined) {
    if (entry.source !== 'human')
      return `it needs ${quorum.required} approvals, and a ${entry.source === 'memory' ? 'run-wide approval' : 'grant'} is one person's word`;
    return quorumProblem(config, run, entry, target, quorum, secret);
  }
  if (!mayDecide(config, target, entry.by)) return `${entry.by ?? 'an anonymous approver'} may not decide it`;
  const sameGrantor = (grant: RunGrant) =>
    grant.by === undefined ? entry.by === undefined : samePerson(grant.by, entry.by);
  if (entry.source === 'memory' && !lookup.runGrantors(entry.toolName).some(sameGrantor)) {
    return `no run-wide approval of ${entry.toolName} by ${entry.by ?? 'an anonymous approver'} is recorded in this run`;
  }
  if (entry.source === 'grant' && entry.grantId === undefined) return 'its decision names no grant';
  return undefined;
}

/** Where a turn's decisions and calls are found: built once per turn, so checking each of a thousand calls does not rescan the run. */
export interface TurnLookup {
  /** The first decision recorded for each approval id. */
  readonly byApproval: ReadonlyMap<string, AuditEntry>;
  /** The last automatic decision (no approval id) for each call id. */
  readonly automatic: ReadonlyMap<string, AuditEntry>;
  /** The first call of the current turn with each id. */
  readonly calls: ReadonlyMap<string, ToolCall>;
  /** The run-wide approvals in force for a tool (`runGrantors`), read once per tool however many of its calls memory covers. */
  runGrantors(toolName: string): readonly RunGrant[];
}

/** The lookup `assertCallMayRun` reads a snapshot through, for a run signed with `secret` (if any). */
export function turnLookup(snapshot: AgentSnapshot, secret: string | undefined): TurnLookup {
  const byApproval = new Map<string, AuditEntry>();
  const automatic = new Map<string, AuditEntry>();
  for (const entry of snapshot.audit) {
    if (entry.approvalId === undefined) automatic.set(entry.toolCallId, entry);
    else if (!byApproval.has(entry.approvalId)) byApproval.set(entry.approvalId, entry);
  }
  const calls = new Map<string, ToolCall>();
  for (const call of currentToolCalls(snapshot)) if (!calls.has(call.id)) calls.set(call.id, call);
  const grantors = new Map<string, readonly RunGrant[]>();
  return {
    byApproval,
    automatic,
    calls,
    runGrantors(toolName) {
      const known = grantors.get(toolName);
      if (known !== undefined) return known;
      const found = runGrantors(snapshot, toolName, secret);
      grantors.set(toolName, found);
      return found;
    },
  };
}

/** The decision a record runs on: the one recorded for its own approval, or the automatic one for its call. */
function decisionFor(lookup: TurnLookup, record: ToolCallRecord): AuditEntry | undefined {
  return record.approvalId === undefined
    ? lookup.automatic.get(record.toolCallId)
    : lookup.byApproval.get(record.approvalId);
}

/** With a secret: the decision must be validly signed, approve this very call, and the arguments about to run must be the approved ones. */
function verifySignedDecision(
  secret: string,
  snapshot: AgentSnapshot,
  record: ToolCallRecord,
  entry: AuditEntry | undefined,
  lookup: TurnLookup,
): asserts entry is AuditEntry {
  const label = record.approvalId ?? record.toolCallId;
  // A v1 signature still covers the call, tool, verdict and arguments: enough to run the call it names, never to widen memory.
  const approvesThisCall =
    entry !== undefined &&
    entry.decision === 'approved' &&
    entry.toolCallId === record.toolCallId &&
    entry.toolName === record.toolName &&
    decisionSignatureOf(secret, snapshot, entry) !== undefined;
  if (!approvesThisCall) {
    throw new ApprovalSignatureError(
      label,
      `call ${record.toolCallId} has no validly signed approval; ${SNAPSHOT_ALTERED_OR_OTHER_SECRET}. Nothing was run.`,
    );
  }
  const call = lookup.calls.get(record.toolCallId);
  const argsMatch = call !== undefined && call.name === entry.toolName && digestOf(call.args) === entry.argsDigest;
  const editMatch =
    record.editedArgs === undefined
      ? entry.editedArgsDigest === undefined
      : digestOf(record.editedArgs) === entry.editedArgsDigest;
  if (!argsMatch || !editMatch) {
    throw new ApprovalSignatureError(
      label,
      `the arguments of call ${record.toolCallId} are not the ones approved; ${SNAPSHOT_ALTERED_OR_OTHER_SECRET}. Nothing was run.`,
    );
  }
}

/**
 * Why the grant a `source: 'grant'` entry names does not back it: it must be in the store, validly signed (with a
 * secret), not revoked, an approval of this tool by the entry's person, live when it decided, and hold the
 * (signed) use this very call spent.
 */
async function grantProblem(
  store: GrantStore,
  secret: string | undefined,
  run: AgentSnapshot,
  entry: AuditEntry,
): Promise<string | undefined> {
  const grantId = entry.grantId!;
  const record = await store.get(grantId);
  if (record === undefined) return `the grant it names (${grantId}) is not in the grant store`;
  const { grant } = record;
  if (secret !== undefined && !grantSignatureHolds(secret, grant))
    return `the grant it names (${grantId}) does not match its signature: ${GRANT_ALTERED_OR_OTHER_SECRET}`;
  if (record.revoked) return `the grant it names (${grantId}) was revoked`;
  if (grant.decision !== 'approved' || grant.toolName !== entry.toolName || grant.agentName !== run.agentName)
    return `the grant it names (${grantId}) does not approve ${entry.toolName}`;
  if (grant.grantedBy !== entry.by) return `the grant it names (${grantId}) was given by someone else`;
  if (grant.expiresAt !== undefined && entry.at >= grant.expiresAt)
    return `the grant it names (${grantId}) had expired when it decided`;
  const useKey = useKeyOf(run.runId, entry.toolCallId);
  const use = await store.useOf(grantId, useKey);
  if (use === undefined || (secret !== undefined && !useSignatureHolds(secret, use, grantId, useKey)))
    return `the grant it names (${grantId}) holds no signed use for this call${use === undefined ? '' : `: ${GRANT_ALTERED_OR_OTHER_SECRET}`}`;
  return undefined;
}

/**
 * The gate, before an approved call runs: the decision recorded for its own approval id (or the automatic one for
 * the call) must exist and approve this call; with a secret it must be validly signed and the arguments about to run
 * must be the approved ones (the model's, or the approved edit); and, secret or not, the signed fields must prove
 * the call is covered (`coverageProblem`), and a grant it names must back it in the grant store. Throws `ApprovalSignatureError` or `CallNotCoveredError`; nothing runs.
 * Pass one `turnLookup` when checking every call of a turn.
 */
export async function assertCallMayRun(
  config: DeciderConfig & { readonly settings: { readonly grantStore: GrantStore } },
  secret: string | undefined,
  snapshot: AgentSnapshot,
  record: ToolCallRecord,
  lookup: TurnLookup = turnLookup(snapshot, secret),
): Promise<void> {
  const entry = decisionFor(lookup, record);
  if (secret !== undefined) verifySignedDecision(secret, snapshot, record, entry, lookup);
  if (entry === undefined || entry.toolCallId !== record.toolCallId || entry.toolName !== record.toolName) {
    throw new CallNotCoveredError(record.toolCallId, record.approvalId, 'no decision for this call is recorded');
  }
  const problem =
    coverageProblem(config, snapshot, entry, secret, lookup) ??
    (entry.source === 'grant' ? await grantProblem(config.settings.grantStore, secret, snapshot, entry) : undefined);
  if (problem !== undefined) throw new CallNotCoveredError(record.toolCallId, record.approvalId, problem);
}

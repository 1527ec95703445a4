import { annotationLine, delegationLine, votesLine } from '../kit/surface/request-notes.js';
import { moreNeeded } from '../kit/surface/wording.js';
import type { Markup } from '../kit/markup.js';
import { replaceInvisible } from '../presentation/display-text.js';
import type { ApprovalRequest } from '../run/types.js';
import type { RunIdentity } from '../run/run-identity.js';
import type { GrantState } from '../ports/grant-store.js';
import type { Decided, ShownRun } from './approvals.js';

function jsonEscape(char: string): string {
  let escaped = '';
  for (let index = 0; index < char.length; index++)
    escaped += `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`;
  return escaped;
}

/**
 * Text safe to print to a reviewer's terminal: control characters (except
 * tab and newline), bidi controls and invisible characters are shown as
 * their JSON escapes (`\u001b`, `\u202e`, `\udb40\udc41` above U+FFFF), so
 * text from a model or another caller cannot move the cursor, recolour,
 * retitle or reorder what the reviewer reads, and `--json` output stays the
 * same JSON. Everything the CLI prints goes through it.
 */
export function inert(text: string): string {
  return replaceInvisible(text, jsonEscape);
}

/**
 * A terminal has no markup: what the channels' wording marks up prints as it is, and its signs are the CLI's own
 * (`inert` would show an emoji's variation selector as an escape).
 */
const terminal: Markup = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who: (by) => by ?? 'someone',
};
const terminalMarks = { claims: '', warning: '! ' };

function when(epochMs: number | undefined): string {
  return epochMs === undefined ? 'never' : new Date(epochMs).toISOString();
}

/** `  session <id>` after a run id, for a run in a session. */
function sessionOf(run: RunIdentity): string {
  return run.sessionId === undefined ? '' : `  session ${run.sessionId}`;
}

/** A line of a request as the CLI shows it, before `inert` (and, on a card, colour): its text and how it reads. */
export interface RequestLine {
  readonly text: string;
  /** `title`: what is asked; `warning`: what to check first; `muted`: ids and times. */
  readonly tone?: 'title' | 'warning' | 'muted';
}

/** The run a request is shown for: its identity, and its agent, where the chain of a sub-agent's request starts. */
export type ShownRequestRun = RunIdentity & { readonly agentName: string };

/**
 * What a reviewer reads about a pending request above its arguments: what, which sub-agent asked, where, when, why,
 * warnings first.
 */
export function requestLines(run: ShownRequestRun, request: ApprovalRequest, now: number): RequestLine[] {
  const lines: RequestLine[] = [
    { text: `${request.toolName}  ${request.description}`, tone: 'title' },
    { text: `  run ${run.runId}${sessionOf(run)}  approval ${request.approvalId}`, tone: 'muted' },
    {
      text: `  requested ${when(request.requestedAt)}  expires ${when(request.expiresAt)}${request.expiresAt !== undefined && request.expiresAt <= now ? ' (EXPIRED)' : ''}`,
      tone: 'muted',
    },
  ];
  const delegation = delegationLine(request, terminal, run.agentName);
  if (delegation !== '') lines.push({ text: `  ${delegation}` });
  if (request.connector !== undefined) lines.push({ text: `  connector ${request.connector}` });
  const claims = annotationLine(request, terminal, terminalMarks);
  if (claims !== '')
    lines.push({ text: `  ${claims}`, ...(request.annotations?.destructiveHint ? { tone: 'warning' as const } : {}) });
  if (request.reason) lines.push({ text: `  why asked: ${request.reason}` });
  if (request.outcomeUnknown)
    lines.push({
      text: '  ! this call was interrupted before it reported; it may already have had its effect',
      tone: 'warning',
    });
  for (const warning of request.warnings) {
    lines.push({
      text: `  ! ${warning.code}${warning.path === '' ? '' : ` at ${warning.path}`}: ${warning.message}`,
      tone: 'warning',
    });
  }
  if (request.approvers) lines.push({ text: `  approvers: ${request.approvers.join(', ')}` });
  if (request.decisions)
    lines.push({ text: `  decisions offered: ${request.decisions.join(', ') || 'none (dismiss only)'}` });
  const votes = votesLine(request, terminal, run.requestedBy, '');
  if (votes !== '') lines.push({ text: `  ${votes}` });
  return lines;
}

/** The (redacted) arguments as indented JSON lines, `  | ` before each. */
export function argumentLines(args: unknown): string[] {
  return JSON.stringify(args, null, 2)
    .split('\n')
    .map((line) => `  | ${line}`);
}

/** A pending request as a reviewer reads it in a terminal: what, why, warnings first, then the arguments. */
export function formatRequest(run: ShownRequestRun, request: ApprovalRequest, now: number): string {
  return inert(
    [...requestLines(run, request, now).map((line) => line.text), ...argumentLines(request.args)].join('\n'),
  );
}

/** A run's state in a few lines (its turns where the CLI holds the runtime; the approval app does not send them). */
export function formatRun(snapshot: ShownRun, now: number): string {
  const turns = snapshot.turns === undefined ? '' : `  turns ${snapshot.turns}/${snapshot.maxTurns}`;
  const lines = [
    `run ${snapshot.runId}  agent ${snapshot.agentName}${sessionOf(snapshot)}`,
    `  status ${snapshot.status}${snapshot.stopReason ? ` (${snapshot.stopReason})` : ''}${turns}  version ${snapshot.version}`,
  ];
  if (snapshot.output !== undefined) lines.push(`  output: ${snapshot.output}`);
  if (snapshot.error) lines.push(`  error: ${snapshot.error.code}: ${snapshot.error.message}`);
  for (const request of snapshot.pendingApprovals)
    lines.push(formatRequest(snapshot, request, now).replace(/^/gm, '  '));
  for (const entry of snapshot.audit) {
    lines.push(
      `  audit ${when(entry.at)} ${entry.toolName} ${entry.decision} by ${entry.by ?? entry.source}${entry.reason ? `: ${entry.reason}` : ''}`,
    );
  }
  return inert(lines.join('\n'));
}

/**
 * What `approve`, `deny` and `dismiss` print: the decision and the run's status, or, on a request several people must
 * approve that still needs approvals, that the vote was recorded and how many more are needed.
 */
export function formatDecision(
  verb: string,
  result: Pick<Decided, 'duplicate' | 'status' | 'vote' | 'where' | 'elsewhere'>,
): string {
  const vote = result.vote;
  if (vote !== undefined && vote.remaining > 0) {
    return `vote ${vote.recorded ? 'recorded' : 'already recorded'}: ${vote.approvals} of ${vote.required} approvals, ${moreNeeded(vote.remaining)}; run is ${result.status}`;
  }
  // A run whose tools are in another process: say who carries the decision out, not only the run's status.
  if (result.elsewhere) return `${verb}${result.duplicate ? ' (already recorded)' : ''}: ${result.where}`;
  return `${verb}${result.duplicate ? ' (already recorded)' : ''}; run is ${result.status}`;
}

/** One line per grant: id, reach, tool, decision, who, uses and expiry. */
export function formatGrant(grant: GrantState): string {
  const reach = grant.scope === 'session' ? `session ${grant.sessionId}` : `agent ${grant.agentName}`;
  const uses = grant.uses === undefined ? `used ${grant.used}` : `used ${grant.used}/${grant.uses}`;
  const until = grant.expiresAt === undefined ? 'no expiry' : `until ${new Date(grant.expiresAt).toISOString()}`;
  const args = grant.argsMatch === undefined ? '' : ` args ${JSON.stringify(grant.argsMatch)}`;
  return `${grant.id}  ${reach}  ${grant.toolName} ${grant.decision} by ${grant.grantedBy ?? '(unnamed)'}  ${uses}  ${until}${args}`;
}

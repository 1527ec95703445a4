// `countersign review`: pending approvals one card at a time, decided with single keys on a terminal.
import { widerOffer } from '../../channels/wording.js';
import { digestOf } from '../../run/digest.js';
import type { ApprovalResponse } from '../../run/types.js';
import type { PendingApprovalEntry } from '../../ports/snapshot-store.js';
import type { RespondMode } from '../../runtime/runtime.js';
import { codeOf } from '../error-code.js';
import { type Approvals, DISMISSAL, type Decided } from '../approvals.js';
import { inert } from '../format.js';
import { formatCard } from './card.js';
import { editInEditor } from './edit-in-editor.js';
import { keyReader } from './key-reader.js';
import { paintFor } from './paint.js';

export interface ReviewIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Record<string, string | undefined>;
}

export interface ReviewOptions {
  readonly by?: string | undefined;
  readonly agent?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly mode?: RespondMode | undefined;
  /** Print the cards as JSON Lines and decide nothing. */
  readonly json: boolean;
}

/**
 * What `s` approves, and how the reviewer is told: the session, when the run has one (a grant for its later runs),
 * else the run; nothing for a gateway's run outside a session, which makes one call only.
 */
const FOR_THE_RUN = { scope: 'run', label: 'for this run' } as const;
const FOR_THE_SESSION = { scope: 'session', label: 'for this session' } as const;
/** The wider approval the card offers, as every surface asks `widerOffer`: none on a quorum request or, for the run, on a one-call run. */
const widerScope = (item: PendingApprovalEntry) => {
  const scope = item.sessionId === undefined ? FOR_THE_RUN : FOR_THE_SESSION;
  return widerOffer(item.request, { wider: item.sessionId === undefined ? 'run' : 'session' }) === undefined ? undefined : scope;
};

/** The decision part of a response; the reviewer adds who, which approval and its signature. */
type Decision = Pick<ApprovalResponse, 'approved' | 'dismissed' | 'reason' | 'scope' | 'args'>;

/** A dismissal is one person's closing of the request, not a vote: a quorum request offers no `d` (as the console offers no Dismiss). */
const dismissable = (item: PendingApprovalEntry) => item.request.quorum === undefined;

/**
 * Walks the pending approvals (soonest expiry first) as cards: y approve once, s approve for the run, n deny with a
 * reason, d dismiss (close it without a decision, as `countersign dismiss` does; not on a quorum request), e edit the
 * arguments in `$EDITOR` (checked against the tool's schema by the runtime), v view the full
 * arguments, j skip, q quit. After each decision it says what happened and where the tool runs. With `json` it
 * prints the cards as JSON Lines and exits: scripts decide with `approve` and `deny`.
 */
export async function runReview(approvals: Approvals, io: ReviewIo, options: ReviewOptions): Promise<number> {
  const page = await approvals.pending({
    limit: 500,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  const total = page.items.length;
  if (options.json) {
    for (const [index, item] of page.items.entries()) io.stdout.write(`${inert(JSON.stringify({ position: index + 1, total, ...item }))}\n`);
    return 0;
  }
  const paint = paintFor(io.stdout, io.env);
  const reader = keyReader(io.stdin);
  const write = (text: string) => io.stdout.write(text);
  const say = (text: string) => write(`${inert(text)}\n`);
  const keys = (item: PendingApprovalEntry) => {
    const wider = widerScope(item);
    return `${paint.key('y')} approve once · ${wider === undefined ? '' : `${paint.key('s')} approve ${wider.label} · `}${paint.key('n')} deny · ${dismissable(item) ? `${paint.key('d')} dismiss · ` : ''}${paint.key('e')} edit · ${paint.key('v')} view all · ${paint.key('j')} skip · ${paint.key('q')} quit${reader.raw ? ' ' : '\n> '}`;
  };
  /** The next key, echoed on a terminal (raw keys are not), undefined when the reviewer is done. */
  const ask = async (prompt: string) => {
    write(prompt);
    const key = await reader.key();
    if (reader.raw) write(`${key === undefined ? 'q' : inert(key)}\n`);
    return key;
  };
  const respond = (item: PendingApprovalEntry, decision: Decision) =>
    approvals.respond(
      item.runId,
      {
        approvalId: item.request.approvalId,
        // The reviewer saw this request; echoing its signature is what a decision secret asks of a decider.
        ...(item.request.signature === undefined ? {} : { signature: item.request.signature }),
        ...(options.by === undefined ? {} : { approvedBy: options.by }),
        ...decision,
      },
      options.mode,
    );
  const report = (what: string, result: Decided) =>
    write(`${paint[what.startsWith('approved') ? 'good' : 'bad'](inert(`${what}${result.duplicate ? ' (already recorded)' : ''}`))}: ${inert(result.where)}\n`);

  /** Edits in `$EDITOR` until the runtime takes the arguments (the result) or the reviewer cancels (undefined). */
  const edit = async (item: PendingApprovalEntry): Promise<Decided | undefined> => {
    if (digestOf(item.request.args) !== item.request.argsDigest) {
      say(
        '! the arguments shown are redacted or escaped, not the real ones, so they cannot be edited here (an edit would send the display copy); approve or deny them as they are',
      );
      return undefined;
    }
    let text = `${JSON.stringify(item.request.args, null, 2)}\n`;
    for (;;) {
      let problem: string;
      reader.pause();
      try {
        text = await editInEditor(text, item.request.approvalId, io.env);
      } catch (error) {
        say(`edit cancelled: ${(error as Error).message}`);
        return undefined;
      } finally {
        reader.resume();
      }
      try {
        return await respond(item, { approved: true, args: JSON.parse(text) as unknown });
      } catch (error) {
        if (error instanceof SyntaxError) problem = `not JSON: ${error.message}`;
        else if (codeOf(error) === 'invalid_edit') problem = (error as Error).message;
        else throw error;
      }
      write(`${paint.bad(inert(problem))}\n`);
      if ((await ask(`${paint.key('e')} edit again · ${paint.key('c')} cancel the edit${reader.raw ? ' ' : '\n> '}`)) !== 'e') return undefined;
    }
  };

  let decided = 0;
  try {
    if (total === 0) say('no pending approvals');
    review: for (const [index, item] of page.items.entries()) {
      const position = { index: index + 1, total };
      write(`\n${formatCard(item, position, Date.now(), paint)}\n`);
      for (;;) {
        const key = await ask(keys(item));
        if (key === undefined || key === 'q') break review;
        if (key === 'j') break;
        if (key === 'v') {
          write(`${formatCard(item, position, Date.now(), paint, true)}\n`);
          continue;
        }
        const wider = widerScope(item);
        if (!['y', 'n', 'e', ...(wider === undefined ? [] : ['s']), ...(dismissable(item) ? ['d'] : [])].includes(key)) {
          say(`${key} is not a key here; answer y, ${wider === undefined ? '' : 's, '}n, ${dismissable(item) ? 'd, ' : ''}e, v, j or q`);
          continue;
        }
        try {
          if (key === 'e') {
            const result = await edit(item);
            if (result === undefined) continue;
            report('approved with your edit', result);
          } else if (key === 'd') {
            report('dismissed (closed without a decision)', await respond(item, DISMISSAL));
          } else if (key === 'n') {
            write('reason (Enter for none): ');
            const reason = await reader.line();
            if (reason === undefined) break review;
            report(`denied${reason.trim() ? ` (${reason.trim()})` : ''}`, await respond(item, { approved: false, ...(reason.trim() ? { reason: reason.trim() } : {}) }));
          } else {
            const { scope, label } = key === 's' && wider !== undefined ? wider : ({ scope: 'once', label: 'once' } as const);
            report(`approved ${label}`, await respond(item, { approved: true, scope }));
          }
          decided++;
        } catch (error) {
          const code = codeOf(error) === undefined ? '' : ` [${codeOf(error)}]`;
          io.stderr.write(`${inert(`error${code}: ${(error as Error)?.message ?? String(error)}`)}\n`);
        }
        break;
      }
    }
  } finally {
    reader.close();
  }
  say(`\n${decided} decided`);
  return 0;
}

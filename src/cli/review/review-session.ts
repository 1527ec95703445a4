// One reviewer at the terminal: a card at a time, one key each, decisions sent through the approvals the command
// reads (an approval app, or a runtime module). runReview (review-command.ts) walks the cards; this answers them.
import { decisionChoices, type DecisionChoices } from '../../kit/surface/decision-buttons.js';
import type { PendingApprovalEntry } from '../../ports/snapshot-store.js';
import { digestOf } from '../../run/digest.js';
import type { Question } from '../../run/question.js';
import type { ApprovalResponse } from '../../run/types.js';
import { codeOf } from '../error-code.js';
import { type Approvals, DISMISSAL, type Decided } from '../approvals.js';
import { inert } from '../format.js';
import { formatCard } from './card.js';
import { editInEditor } from './edit-in-editor.js';
import { askQuestion } from './question-prompt.js';
import { type KeyReader, keyReader } from './key-reader.js';
import { type Paint, paintFor } from './paint.js';
import type { RespondMode } from '../../runtime/runtime.js';

/**
 * What a card offers, as every surface asks `decisionChoices`: only the decisions its request offers; `s` approves
 * for the session when the run has one (a grant for its later runs), else for the run (none for a gateway's run
 * outside a session, which makes one call only); no `d` on a quorum request (a dismissal is not a vote).
 */
const choicesOf = (item: PendingApprovalEntry): DecisionChoices => decisionChoices(item.request, item.sessionId);

/** The decision keys a card takes, by what it offers. */
function decisionKeys(offered: DecisionChoices): readonly string[] {
  return [
    ...(offered.approve ? ['y'] : []),
    ...(offered.wider === undefined ? [] : ['s']),
    ...(offered.deny ? ['n'] : []),
    ...(offered.dismiss ? ['d'] : []),
    ...(offered.edit ? ['e'] : []),
  ];
}

/** The decision part of a response; the reviewer adds who, which approval and its signature. */
type Decision = Pick<ApprovalResponse, 'approved' | 'dismissed' | 'reason' | 'scope' | 'args' | 'answer'>;

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

/** Where a card stands among the cards of this review. */
export interface CardPosition {
  readonly index: number;
  readonly total: number;
}

/** How a card ended: decided, skipped, or the reviewer is done. */
export type CardAnswer = 'decided' | 'skipped' | 'quit';

/** The terminal side of `countersign review`: keys in, cards and outcomes out. */
export class ReviewSession {
  readonly #approvals: Approvals;
  readonly #io: ReviewIo;
  readonly #options: ReviewOptions;
  readonly #paint: Paint;
  readonly #reader: KeyReader;

  constructor(approvals: Approvals, io: ReviewIo, options: ReviewOptions) {
    this.#approvals = approvals;
    this.#io = io;
    this.#options = options;
    this.#paint = paintFor(io.stdout, io.env);
    this.#reader = keyReader(io.stdin);
  }

  say(text: string): void {
    this.#write(`${inert(text)}\n`);
  }

  close(): void {
    this.#reader.close();
  }

  /** Shows a card and takes keys until the reviewer decides it, skips it or quits. */
  async review(item: PendingApprovalEntry, position: CardPosition): Promise<CardAnswer> {
    this.#write(`\n${formatCard(item, position, Date.now(), this.#paint)}\n`);
    if (item.request.question !== undefined) return this.#reviewQuestion(item, item.request.question);
    for (;;) {
      const key = await this.#ask(this.#keys(item));
      if (key === undefined || key === 'q') return 'quit';
      if (key === 'j') return 'skipped';
      if (key === 'v') {
        this.#write(`${formatCard(item, position, Date.now(), this.#paint, true)}\n`);
        continue;
      }
      const keys = decisionKeys(choicesOf(item));
      if (!keys.includes(key)) {
        this.say(`${key} is not a key here; answer ${[...keys, 'v', 'j'].join(', ')} or q`);
        continue;
      }
      try {
        const answer = await this.#decide(item, key);
        if (answer !== 'again') return answer;
      } catch (error) {
        const code = codeOf(error) === undefined ? '' : ` [${codeOf(error)}]`;
        this.#io.stderr.write(`${inert(`error${code}: ${(error as Error)?.message ?? String(error)}`)}\n`);
        return 'skipped';
      }
    }
  }

  /** Acts on a decision key (y, s, n, d, e); 'again' when an edit was cancelled (the card asks for a key again). */
  async #decide(item: PendingApprovalEntry, key: string): Promise<CardAnswer | 'again'> {
    if (key === 'e') {
      const result = await this.#edit(item);
      if (result === undefined) return 'again';
      this.#report('approved with your edit', result);
    } else if (key === 'd') {
      this.#report('dismissed (closed without a decision)', await this.#respond(item, DISMISSAL));
    } else if (key === 'n') {
      this.#write('reason (Enter for none): ');
      const reason = await this.#reader.line();
      if (reason === undefined) return 'quit';
      const why = reason.trim();
      this.#report(
        `denied${why ? ` (${why})` : ''}`,
        await this.#respond(item, { approved: false, ...(why ? { reason: why } : {}) }),
      );
    } else {
      const scope = (key === 's' ? choicesOf(item).wider?.scope : undefined) ?? 'once';
      const label = scope === 'once' ? 'once' : `for this ${scope}`;
      this.#report(`approved ${label}`, await this.#respond(item, { approved: true, scope }));
    }
    return 'decided';
  }

  /** A question's card: a answers it field by field, n declines, j skips, q quits. */
  async #reviewQuestion(item: PendingApprovalEntry, question: Question): Promise<CardAnswer> {
    const key = this.#paint.key;
    for (;;) {
      const pressed = await this.#ask(
        `${key('a')} answer · ${key('n')} decline · ${key('j')} skip · ${key('q')} quit${this.#prompt()}`,
      );
      if (pressed === undefined || pressed === 'q') return 'quit';
      if (pressed === 'j') return 'skipped';
      if (pressed !== 'a' && pressed !== 'n') {
        this.say(`${pressed} is not a key here; answer a, n, j or q`);
        continue;
      }
      try {
        if (pressed === 'n') {
          this.#report('declined', await this.#respond(item, { approved: false, reason: 'declined at the terminal' }));
          return 'decided';
        }
        const answer = await askQuestion(question, {
          write: (text) => this.#write(text),
          line: () => this.#reader.line(),
          paint: this.#paint,
        });
        if (answer === undefined) return 'quit';
        this.#report('answered', await this.#respond(item, { approved: true, answer }));
        return 'decided';
      } catch (error) {
        const code = codeOf(error) === undefined ? '' : ` [${codeOf(error)}]`;
        this.#io.stderr.write(`${inert(`error${code}: ${(error as Error)?.message ?? String(error)}`)}\n`);
        return 'skipped';
      }
    }
  }

  #write(text: string): void {
    this.#io.stdout.write(text);
  }

  #keys(item: PendingApprovalEntry): string {
    const key = this.#paint.key;
    const offered = choicesOf(item);
    const offers = [
      ...(offered.approve ? [`${key('y')} approve once`] : []),
      ...(offered.wider === undefined ? [] : [`${key('s')} ${offered.wider.label.toLowerCase()}`]),
      ...(offered.deny ? [`${key('n')} deny`] : []),
      ...(offered.dismiss ? [`${key('d')} dismiss`] : []),
      ...(offered.edit ? [`${key('e')} edit`] : []),
      `${key('v')} view all`,
      `${key('j')} skip`,
      `${key('q')} quit`,
    ];
    return `${offers.join(' · ')}${this.#prompt()}`;
  }

  #prompt(): string {
    return this.#reader.raw ? ' ' : '\n> ';
  }

  /** The next key, echoed on a terminal (raw keys are not), undefined when the reviewer is done. */
  async #ask(prompt: string): Promise<string | undefined> {
    this.#write(prompt);
    const key = await this.#reader.key();
    if (this.#reader.raw) this.#write(`${key === undefined ? 'q' : inert(key)}\n`);
    return key;
  }

  #respond(item: PendingApprovalEntry, decision: Decision): Promise<Decided> {
    return this.#approvals.respond(
      item.runId,
      {
        approvalId: item.request.approvalId,
        // The reviewer saw this request; echoing its signature is what a decision secret asks of a decider.
        ...(item.request.signature === undefined ? {} : { signature: item.request.signature }),
        ...(this.#options.by === undefined ? {} : { approvedBy: this.#options.by }),
        ...decision,
      },
      this.#options.mode,
    );
  }

  #report(what: string, result: Decided): void {
    const tone = what.startsWith('approved') || what === 'answered' ? 'good' : 'bad';
    this.#write(
      `${this.#paint[tone](inert(`${what}${result.duplicate ? ' (already recorded)' : ''}`))}: ${inert(result.where)}\n`,
    );
  }

  /** Edits in `$EDITOR` until the runtime takes the arguments (the result) or the reviewer cancels (undefined). */
  async #edit(item: PendingApprovalEntry): Promise<Decided | undefined> {
    if (digestOf(item.request.args) !== item.request.argsDigest) {
      this.say(
        '! the arguments shown are redacted or escaped, not the real ones, so they cannot be edited here (an edit would send the display copy); approve or deny them as they are',
      );
      return undefined;
    }
    let text = `${JSON.stringify(item.request.args, null, 2)}\n`;
    for (;;) {
      const edited = await this.#editText(text, item.request.approvalId);
      if (edited === undefined) return undefined;
      text = edited;
      const problem = await this.#tryEdit(item, text);
      if (typeof problem !== 'string') return problem;
      this.#write(`${this.#paint.bad(inert(problem))}\n`);
      if (
        (await this.#ask(
          `${this.#paint.key('e')} edit again · ${this.#paint.key('c')} cancel the edit${this.#prompt()}`,
        )) !== 'e'
      )
        return undefined;
    }
  }

  /** The text after the reviewer's editor closed; undefined when the edit was cancelled. */
  async #editText(text: string, approvalId: string): Promise<string | undefined> {
    this.#reader.pause();
    try {
      return await editInEditor(text, approvalId, this.#io.env);
    } catch (error) {
      this.say(`edit cancelled: ${(error as Error).message}`);
      return undefined;
    } finally {
      this.#reader.resume();
    }
  }

  /** Sends the edited arguments: the decision when the runtime takes them, else what is wrong with them. */
  async #tryEdit(item: PendingApprovalEntry, text: string): Promise<Decided | string> {
    try {
      return await this.#respond(item, { approved: true, args: JSON.parse(text) as unknown });
    } catch (error) {
      if (error instanceof SyntaxError) return `not JSON: ${error.message}`;
      if (codeOf(error) === 'invalid_edit') return (error as Error).message;
      throw error;
    }
  }
}

// A click on a one-click link or a chat button: its decision is recorded first (awaited, however long the store
// takes; a failure is thrown and answered as a refusal), and only then does the run go on, here for up to
// resumeTimeoutMs. answerClick turns the outcome into the words every channel shares.
import type { Answer } from '../../run/question.js';
import type { LinkedRuntime, LinkRespondResult } from '../../runtime/runtime.js';
import type { ResumeMode } from '../web/answer-options.js';
import type { Markup } from '../markup.js';
import { classifyRefusal, linkRun } from './refusal.js';
import { decidedReply, refusalReply, type ClickReply } from './wording.js';

/** What a link decision needs beside the token; a `Click` carries the same fields. */
export interface LinkDecisionSettings {
  readonly resumeMode: ResumeMode;
  readonly resumeTimeoutMs: number;
  /** Who clicked, when the token was minted for nobody in particular. */
  readonly approvedBy?: string;
  /** The denier's own words (a deny token only). */
  readonly reason?: string;
  /** The answer to a question (an approve token of a request with `question`), checked where it is recorded. */
  readonly answer?: Answer;
  /** A run that went on after the answer and failed later. */
  readonly onLateError: (error: unknown, runId: string) => void;
}

/**
 * Spends a one-click token and records its decision through `runtime.decideWithLink` (queueing the run in enqueue
 * mode), which, inline, resumes a run it made ready for up to `resumeTimeoutMs`. `carryingOn` is true when the run
 * was still going here then, or, in record mode, when the decision made the run ready for the process that follows
 * it: the decision is recorded either way, never assumed. A worker's run (enqueue) is not told as carrying on.
 * @internal shared by `answerClick` and the link page; a channel answers a click with `answerClick`.
 */
export async function decideWithLink(
  runtime: LinkedRuntime,
  token: string,
  settings: LinkDecisionSettings,
): Promise<{ readonly result: LinkRespondResult; readonly carryingOn: boolean }> {
  const result = await runtime.decideWithLink(token, {
    mode: settings.resumeMode,
    waitMs: settings.resumeTimeoutMs,
    onLateError: settings.onLateError,
    ...(settings.approvedBy === undefined ? {} : { approvedBy: settings.approvedBy }),
    ...(settings.reason === undefined ? {} : { reason: settings.reason }),
    ...(settings.answer === undefined ? {} : { answer: settings.answer }),
  });
  return { result, carryingOn: result.outcome === 'continuing' && result.where !== 'worker' };
}

/** One click to answer: the token its button carried, who clicked (`slack:U123`), and how the channel writes. */
export interface Click extends Omit<LinkDecisionSettings, 'approvedBy' | 'onLateError'> {
  readonly token: string;
  readonly clicker: string;
  /** The channel's name as people read it (`Slack`), for "Approvals from Slack are not set up". */
  readonly channel: string;
  readonly markup: Markup;
  /** A failure nobody was told about in the reply (an unexpected error, a run that failed after the reply), with its run when known. */
  readonly onError: (
    error: unknown,
    context: { readonly operation: 'click' | 'resume'; readonly runId?: string },
  ) => void;
}

/**
 * Decides `click` and says what to tell the clicker: the decision recorded
 * (and how the run stands), or why nothing was done, in the wording every
 * channel shares. Never throws.
 */
export async function answerClick(runtime: LinkedRuntime, click: Click): Promise<ClickReply> {
  try {
    const { result, carryingOn } = await decideWithLink(runtime, click.token, {
      ...click,
      approvedBy: click.clicker,
      onLateError: (error, runId) => click.onError(error, { operation: 'resume', runId }),
    });
    return decidedReply(result, carryingOn, click.clicker, click.markup, click.answer !== undefined);
  } catch (error) {
    const refusal = await classifyRefusal(runtime, error);
    if (refusal.kind === 'unexpected')
      void linkRun(runtime, click.token).then(({ runId }) =>
        click.onError(error, { operation: 'click', ...(runId === undefined ? {} : { runId }) }),
      );
    return refusalReply(refusal, click.clicker, click.channel, click.markup);
  }
}

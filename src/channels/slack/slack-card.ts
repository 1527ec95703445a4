// The Block Kit messages of a Slack approval: the card that asks (what the call is, its redacted arguments, its
// warnings, when the buttons stop working, and a button carrying a one-click token for each decision it offers), and
// the card once it is no longer a question (its summary kept, the buttons gone, how it ended).
import type { ApprovalCard } from '../channel-notifier.js';
import type { Question } from '../../index.js';
import {
  argsJson,
  escapeMarkup,
  fieldHint,
  fitEscaped,
  cardHead,
  cardWarnings,
  decisionButtons,
  type DecisionButton,
  NO_BUTTONS_TEXT,
} from '../../kit/index.js';
import { ConfigError } from '../../errors.js';
import { mrkdwn, plain, SECTION_LIMIT, slackEscape, slackMarkup } from './slack-markup.js';

/**
 * The `action_id`s of the card's buttons; `createSlackActions` acts on these only.
 *
 * @example
 * const approve = blocks.flatMap((block) => block.elements ?? []).find((element) => element.action_id === SLACK_ACTION_IDS.approve);
 */
export const SLACK_ACTION_IDS = {
  approve: 'countersign_approve',
  approveForRun: 'countersign_approve_run',
  deny: 'countersign_deny',
  /** On a question: opens the modal that answers it (its value the approve token). */
  answer: 'countersign_answer',
} as const;

/**
 * The `block_id` of the buttons: `updated` on a card the notifier edits in place (bot mode), so a click is answered
 * to the clicker alone; `replaced` on a card only the click's answer can rewrite (an incoming webhook's).
 */
export const DECISION_BLOCK_IDS = {
  updated: 'countersign_decision_updated',
  replaced: 'countersign_decision',
} as const;

/** Slack's limit on a button's value. */
const BUTTON_VALUE_LIMIT = 2000;

/** How each decision's button looks. */
const BUTTON_STYLE: Readonly<Record<DecisionButton['which'], { readonly style?: string }>> = {
  approve: { style: 'primary' },
  approveForRun: {},
  deny: { style: 'danger' },
};
/** How much of the summary a card keeps (in the OnceStore) to show again once it is answered. */
const KEPT_SUMMARY = 1000;

export interface SlackMessage {
  /** The notification's text (and what screen readers and old clients show). */
  readonly text: string;
  /** Left out for a plain line. */
  readonly blocks?: readonly Record<string, unknown>[];
}

/**
 * The card asking to decide `card`, and the summary to keep for its later updates. Throws a `ConfigError` when a
 * token is longer than a button may carry (Slack would refuse the whole message).
 */
export function approvalCard(
  card: ApprovalCard,
  updatedInPlace: boolean,
): { readonly message: SlackMessage; readonly summary: string } {
  const { request, tokens, runId } = card;
  // Only the decisions the request offers (a vote on a quorum request is once, a one-call run has nothing more to approve).
  const buttons = decisionButtons(request, tokens);
  if (buttons.some((button) => button.token.length > BUTTON_VALUE_LIMIT)) {
    throw new ConfigError(
      `createSlackNotifier: the tokens of approval ${request.approvalId} are longer than the ${BUTTON_VALUE_LIMIT} characters a Slack button carries; use shorter run and approval ids.`,
    );
  }
  const summary = cardHead(request, card.agentName, slackMarkup, SECTION_LIMIT, card.nudge);
  // A backtick in a JSON string would close the code block; \u0060 is the same JSON value.
  const args = escapeMarkup(argsJson(request.args)).replace(/`/g, '\\u0060');
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: plain('Approval needed') },
    { type: 'section', text: mrkdwn(summary) },
    { type: 'section', text: mrkdwn(`\`\`\`${fitEscaped(args, SECTION_LIMIT - 3, '```')}`) },
  ];
  const warnings = cardWarnings(request, slackMarkup, SECTION_LIMIT);
  if (warnings !== '') blocks.push({ type: 'section', text: mrkdwn(warnings) });
  const seconds = Math.floor(tokens.expiresAt / 1000);
  const until = `<!date^${seconds}^{date_short_pretty} {time}|${new Date(tokens.expiresAt).toISOString()}>`;
  blocks.push({
    type: 'context',
    elements: [
      mrkdwn(
        fitEscaped(
          `Run \`${slackEscape(runId)}\` · approval \`${slackEscape(request.approvalId)}\` · ` +
            (buttons.length === 0 ? slackEscape(NO_BUTTONS_TEXT) : `buttons work once, until ${until}`),
          SECTION_LIMIT,
        ),
      ),
    ],
  });
  // Slack refuses an actions block without elements.
  if (buttons.length > 0)
    blocks.push({
      type: 'actions',
      block_id: updatedInPlace ? DECISION_BLOCK_IDS.updated : DECISION_BLOCK_IDS.replaced,
      elements: buttons.map((button) => ({
        type: 'button',
        // A question's Answer opens its form in a modal; its Decline denies as Deny does.
        action_id:
          request.question !== undefined && button.which === 'approve'
            ? SLACK_ACTION_IDS.answer
            : SLACK_ACTION_IDS[button.which],
        text: plain(button.label),
        ...BUTTON_STYLE[button.which],
        value: button.token,
      })),
    });
  // A question lists its fields instead of the arguments.
  if (request.question !== undefined)
    blocks.splice(2, 1, { type: 'section', text: mrkdwn(questionSummary(request.question)) });
  const text = fitEscaped(
    `Approval needed: ${slackEscape(request.toolName)}: ${slackEscape(request.description)}`,
    300,
  );
  return { message: { text, blocks }, summary: fitEscaped(summary, KEPT_SUMMARY) };
}

/** A question's fields as the card lists them: each title and what it takes. */
function questionSummary(question: Question): string {
  const lines = question.fields.map((field) => `• *${slackEscape(field.title)}*: ${slackEscape(fieldHint(field))}`);
  return fitEscaped(
    `The answer has ${lines.length === 1 ? 'one field' : `${lines.length} fields`}:\n${lines.join('\n')}`,
    SECTION_LIMIT,
  );
}

/** The card once answered: its summary, then how it ended (one line each: the decision, then the call's end). */
export function answeredCard(summary: string, lines: readonly string[]): SlackMessage {
  const outcome = fitEscaped(lines.join('\n'), SECTION_LIMIT);
  return {
    text: fitEscaped(lines.at(-1) ?? '', 300),
    blocks: [
      { type: 'section', text: mrkdwn(summary) },
      { type: 'section', text: mrkdwn(outcome) },
    ],
  };
}

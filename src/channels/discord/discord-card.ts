// The Discord message that asks for one decision: an embed with the request (tool, agent, connector, the model's
// description and reason, warnings, the redacted arguments in a code block) and one row of buttons. Updates change
// the message's content and remove the buttons; the embed stays, so the card still shows what was asked.
import type { ButtonIds } from '../button-ids.js';
import type { ApprovalCard } from '../channel-notifier.js';
import {
  argsJson,
  fitEscaped,
  cardHead,
  cardWarnings,
  decisionButtons,
  type DecisionButton,
  NO_BUTTONS_TEXT,
} from '../../kit/index.js';
import { discordMarkup, fenceSafe } from './discord-markup.js';
import { fitsModal, questionLines } from './discord-question.js';

/** Discord's limit on an embed's description. */
const DESCRIPTION_LIMIT = 4096;

/** What a custom_id of ours starts with; the rest is a short button id. */
export const CUSTOM_ID_PREFIX = 'cs:';

/** No mention in a message of ours notifies anyone, whatever the text says. */
export const NO_MENTIONS = { parse: [] } as const;

/** Each decision's button style (success, primary, danger); Deny asks why in a modal, hence its ellipsis. */
const STYLE: Readonly<Record<DecisionButton['which'], number>> = { approve: 3, approveForRun: 1, deny: 4 };

/** The body of POST /channels/{id}/messages for `card` (`pageUrl`: a question's page, for a form no modal holds). */
export function discordCard(card: ApprovalCard, ids: ButtonIds, pageUrl?: string): Record<string, unknown> {
  const { request, agentName, runId, tokens } = card;
  const head = cardHead(request, agentName, discordMarkup, 1500, card.nudge);
  const warnings = cardWarnings(request, discordMarkup, 800);
  const above = [head, warnings].filter((part) => part !== '').join('\n');
  const args = fitEscaped(
    fenceSafe(argsJson(request.args)),
    DESCRIPTION_LIMIT - above.length - '\n```json\n'.length,
    '\n```',
  );
  // Only the decisions the request offers (a vote on a quorum request is once, a one-call run has nothing more to approve).
  const { question } = request;
  const buttons = decisionButtons(request, tokens).flatMap((button): Record<string, unknown>[] => {
    const id = ids[button.which];
    // A question's Answer opens its modal; a form no modal holds is answered on its page, or in the console.
    if (question !== undefined && button.which === 'approve' && !fitsModal(question))
      return pageUrl === undefined ? [] : [{ type: 2, style: 5, label: 'Answer on its page', url: pageUrl }];
    const label = button.which === 'deny' ? `${button.label}…` : button.label;
    return id === undefined
      ? []
      : [{ type: 2, style: STYLE[button.which], label, custom_id: `${CUSTOM_ID_PREFIX}${id}` }];
  });
  const until = `buttons work once, until ${new Date(tokens.expiresAt).toISOString()}`;
  // A question lists its fields instead of the arguments.
  const body = question === undefined ? `\`\`\`json\n${args}` : questionLines(question, pageUrl);
  return {
    embeds: [
      {
        title: question === undefined ? 'Approval needed' : 'A question for you',
        description: `${above}\n${body}`,
        color: 0xf0b232,
        footer: {
          text: `Run ${runId} · approval ${request.approvalId} · ${buttons.length === 0 ? NO_BUTTONS_TEXT : until}`,
        },
      },
    ],
    // Discord refuses an action row without components.
    components: buttons.length === 0 ? [] : [{ type: 1, components: buttons }],
    allowed_mentions: NO_MENTIONS,
  };
}

// The Discord message that asks for one decision: an embed with the request (tool, agent, connector, the model's
// description and reason, warnings, the redacted arguments in a code block) and one row of buttons. Updates change
// the message's content and remove the buttons; the embed stays, so the card still shows what was asked.
import type { ButtonIds } from '../button-ids.js';
import type { ApprovalCard } from '../channel-notifier.js';
import { argsJson, fitEscaped, cardHead, cardWarnings, widerOffer } from '../../kit/index.js';
import { discordMarkup, fenceSafe } from './discord-markup.js';
import { fitsModal, questionLines } from './discord-question.js';

/** Discord's limit on an embed's description. */
const DESCRIPTION_LIMIT = 4096;

/** What a custom_id of ours starts with; the rest is a short button id. */
export const CUSTOM_ID_PREFIX = 'cs:';

/** No mention in a message of ours notifies anyone, whatever the text says. */
export const NO_MENTIONS = { parse: [] } as const;

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
  const button = (style: number, label: string, id: string) => ({
    type: 2,
    style,
    label,
    custom_id: `${CUSTOM_ID_PREFIX}${id}`,
  });
  const wider = widerOffer(request, tokens);
  const { question } = request;
  // A question lists its fields instead of the arguments, and is answered (a modal, or its page) or declined.
  const body = question === undefined ? `\`\`\`json\n${args}` : questionLines(question, pageUrl);
  const answer =
    question === undefined
      ? []
      : fitsModal(question)
        ? [button(3, 'Answer', ids.approve)]
        : pageUrl === undefined
          ? []
          : [{ type: 2, style: 5, label: 'Answer on its page', url: pageUrl }];
  return {
    embeds: [
      {
        title: question === undefined ? 'Approval needed' : 'A question for you',
        description: `${above}\n${body}`,
        color: 0xf0b232,
        footer: {
          text: `Run ${runId} · approval ${request.approvalId} · buttons work once, until ${new Date(tokens.expiresAt).toISOString()}`,
        },
      },
    ],
    // A vote on a quorum request is once, and a one-call run has nothing more to approve: widerOffer leaves them out.
    components: [
      {
        type: 1,
        components:
          question === undefined
            ? [
                button(3, 'Approve', ids.approve),
                ...(wider === undefined ? [] : [button(1, wider, ids.approveForRun)]),
                button(4, 'Deny…', ids.deny),
              ]
            : [...answer, button(4, 'Decline…', ids.deny)],
      },
    ],
    allowed_mentions: NO_MENTIONS,
  };
}

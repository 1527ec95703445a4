// The message that asks a Telegram chat to decide one approval: what it reads (everything from the request
// escaped, the whole within Telegram's 4096 characters, room kept for the line that later says how it ended),
// its buttons (one for each decision it offers), and that text again with such a line.
import type { ApprovalCard } from '../channel-notifier.js';
import type { ButtonIds } from '../button-ids.js';
import {
  argsJson,
  escapeMarkup,
  fitEscaped,
  cardHead,
  cardWarnings,
  decisionButtons,
  type DecisionButton,
  NO_BUTTONS_TEXT,
} from '../../kit/index.js';
import { TELEGRAM_TEXT_LIMIT } from './bot-api.js';
import { CALLBACK_PREFIX } from './callback-data.js';
import { questionText } from './question-card.js';
import { plainText, telegramMarkup } from './telegram-markup.js';

/** Kept free below the limit for an outcome or reply line (a tool's result excerpt, a denier's reason). */
const LINE_ROOM = 1200;

const e = escapeMarkup;

/** The card's HTML; its buttons work until `card.tokens.expiresAt`; a question lists its fields (`pageUrl`: its page). */
export function cardText(card: ApprovalCard, pageUrl?: string): string {
  const { runId, agentName, request, tokens } = card;
  const head = cardHead(request, agentName, telegramMarkup, 1200, card.nudge);
  const warnings = cardWarnings(request, telegramMarkup, 600);
  const buttons =
    decisionButtons(request, tokens).length === 0
      ? e(NO_BUTTONS_TEXT)
      : `buttons work until ${new Date(tokens.expiresAt).toISOString()}`;
  const foot = `<i>Run ${e(runId)} · approval ${e(request.approvalId)} · ${buttons}</i>`;
  // Model text is escaped and cut before it is wrapped in fixed tags, so a cut never leaves a tag open.
  const fixed = ['<b>Approval needed</b>', head, warnings, foot].filter((part) => part !== '');
  const room = TELEGRAM_TEXT_LIMIT - LINE_ROOM - fixed.join('\n').length - '\n<pre></pre>'.length;
  const args =
    request.question === undefined
      ? `<pre>${fitEscaped(e(argsJson(request.args)), room)}</pre>`
      : questionText(request.question, pageUrl, room);
  return [...fixed.slice(0, -1), args, foot].join('\n');
}

/**
 * The inline keyboard of `buttons` (`decisionButtons`): the approvals on one row (once, and for the rest of the run or
 * this session), deny (with a reason) on the next; a row with no button is left out.
 */
export function cardKeyboard(ids: ButtonIds, buttons: readonly DecisionButton[]) {
  const key = (button: DecisionButton) => {
    const id = ids[button.which];
    const mark = button.which === 'deny' ? '❌' : '✅';
    return id === undefined ? [] : [{ text: `${mark} ${button.label}`, callback_data: `${CALLBACK_PREFIX}${id}` }];
  };
  const approvals = buttons.filter((button) => button.which !== 'deny').flatMap(key);
  const denials = buttons.filter((button) => button.which === 'deny').flatMap(key);
  return { inline_keyboard: [approvals, denials].filter((row) => row.length > 0) };
}

/**
 * The card's arguments block, from its first `\n<pre>` to the next `</pre>`, as `[start, end)`. Two searches:
 * `/\n<pre>[\s\S]*?<\/pre>/` would read to the end again from every `\n<pre>` of a text without `</pre>`.
 */
function argsBlockOf(card: string): readonly [number, number] | undefined {
  const start = card.indexOf('\n<pre>');
  const end = start === -1 ? -1 : card.indexOf('</pre>', start + 6);
  return end === -1 ? undefined : [start, end + 6];
}

/**
 * The card's text with `line` below it. Without room left, the arguments make way first; a line that still does
 * not fit is shown as cut plain text.
 */
export function withLine(card: string, line: string): string {
  const room = TELEGRAM_TEXT_LIMIT - card.length - 2;
  if (line.length <= room) return `${card}\n\n${line}`;
  const block = argsBlockOf(card);
  if (block !== undefined)
    return withLine(
      `${card.slice(0, block[0])}\n<i>(arguments left out to make room)</i>${card.slice(block[1])}`,
      line,
    );
  return `${card}\n\n${fitEscaped(e(plainText(line)), Math.max(0, room))}`;
}

// A question in Telegram: one choice is a button per option, one typed field (text, a number, a date) is a reply to a
// force-reply prompt, and any other form a link to its page on the approval app (`baseUrl`); Decline denies. The card
// lists the fields instead of the arguments.
import type { Question } from '../../index.js';
import { type DecisionButton, escapeMarkup, fieldHint, fitEscaped } from '../../kit/index.js';
import type { ButtonIds } from '../button-ids.js';
import { CALLBACK_PREFIX } from './callback-data.js';

/** How a question is answered in Telegram: its options' buttons, a typed reply, or its page on the approval app. */
export type QuestionMode = 'options' | 'reply' | 'page';

/** How `question` is answered here. */
export function questionMode(question: Question): QuestionMode {
  const [field, other] = question.fields;
  if (field === undefined || other !== undefined) return 'page';
  if (field.kind === 'choice') return 'options';
  return field.kind === 'text' || field.kind === 'longText' || field.kind === 'number' || field.kind === 'date'
    ? 'reply'
    : 'page';
}

/** The card's lines about the question's fields, and how to answer it, within `limit` characters. */
export function questionText(question: Question, pageUrl: string | undefined, limit: number): string {
  const mode = questionMode(question);
  const fields = question.fields.map(
    (field) => `• <b>${escapeMarkup(field.title)}</b>: ${escapeMarkup(fieldHint(field))}`,
  );
  const how =
    mode === 'options'
      ? 'Pick an answer below.'
      : mode === 'reply'
        ? 'Press Answer, then reply with it.'
        : pageUrl === undefined
          ? 'This form is answered in the approval console.'
          : 'Answer it on its page (the button below).';
  return fitEscaped(`${fields.join('\n')}\n<i>${how}</i>`, limit);
}

/**
 * The keyboard of a question's card, from the buttons it offers (`decisionButtons`: Answer, Decline): Answer as an
 * option per row (`cs:<id>:<index>`), a button that sends the prompt, or the page's URL; Decline on the last row.
 */
export function questionKeyboard(
  ids: ButtonIds,
  buttons: readonly DecisionButton[],
  question: Question,
  pageUrl: string | undefined,
) {
  const offered = (which: DecisionButton['which']) =>
    buttons.some((button) => button.which === which) ? ids[which] : undefined;
  const approve = offered('approve');
  const deny = offered('deny');
  const mode = questionMode(question);
  const [field] = question.fields;
  const answer =
    approve === undefined
      ? []
      : mode === 'options' && field?.kind === 'choice'
        ? field.options.map((option, index) => [
            { text: option, callback_data: `${CALLBACK_PREFIX}${approve}:${index}` },
          ])
        : mode === 'reply'
          ? [[{ text: '✍️ Answer', callback_data: `${CALLBACK_PREFIX}${approve}` }]]
          : pageUrl === undefined
            ? []
            : [[{ text: '✍️ Answer on its page', url: pageUrl }]];
  const decline = deny === undefined ? [] : [[{ text: '❌ Decline', callback_data: `${CALLBACK_PREFIX}${deny}` }]];
  return { inline_keyboard: [...answer, ...decline] };
}

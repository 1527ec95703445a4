// What an approval mail and its follow-ups say, written once and rendered twice: as text/plain and as text/html.
// In the HTML part every piece of request text is escaped (quotes too, so nothing leaves an attribute); the only
// tags and attributes are the template's own.
import type { ApprovalCard } from '../channel-notifier.js';
import {
  argsJson,
  fitEscaped,
  type Markup,
  annotationLine,
  delegationLine,
  partitionWarnings,
  votesLine,
  nudgeLine,
  outcomeLine,
  NO_BUTTONS_TEXT,
  type CardOutcome,
  escapeHtml,
  fieldHint,
  htmlMarkup,
} from '../../kit/index.js';
import type { Question } from '../../index.js';

/** The two bodies of one mail. */
export interface MailBody {
  readonly text: string;
  readonly html: string;
}

/** One decision link of a mail: its label (`decisionButtons`) and the page behind it (`approvalLinkUrl`). */
export interface DecisionLink {
  readonly label: string;
  readonly url: string;
}

/** How one part writes: the shared Markup, and the few blocks a mail is made of. */
interface MailFormat extends Markup {
  paragraph(inner: string): string;
  preformatted(escaped: string): string;
  list(items: readonly string[]): string;
  link(label: string, url: string): string;
  document(blocks: readonly string[]): string;
}

const who = (by: string | undefined) => by ?? 'someone';

const plainFormat: MailFormat = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who,
  paragraph: (inner) => inner,
  preformatted: (text) => text,
  list: (items) => items.map((item) => `- ${item}`).join('\n'),
  link: (label, url) => `${label}: ${url}`,
  document: (blocks) => `${blocks.join('\n\n')}\n`,
};

const htmlFormat: MailFormat = {
  ...htmlMarkup,
  paragraph: (inner) => `<p>${inner}</p>`,
  preformatted: (escaped) => `<pre>${escaped}</pre>`,
  list: (items) => `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`,
  link: (label, url) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`,
  document: (blocks) => `<html><body>${blocks.join('')}</body></html>`,
};

/** The most of the arguments' JSON a mail shows. */
const ARGS_LIMIT = 20_000;

/** The paragraph naming the chain of agents down to the sub-agent that asked (`delegationLine`), when one did. */
function delegationBlock(card: ApprovalCard, f: MailFormat): string[] {
  const line = delegationLine(card.request, f, card.agentName);
  return line === '' ? [] : [f.paragraph(line)];
}

function approvalBlocks(card: ApprovalCard, links: readonly DecisionLink[], f: MailFormat): string[] {
  const { request } = card;
  if (request.question !== undefined) return questionBlocks(card, request.question, links, f);
  const blocks = [
    f.paragraph(`${f.strong(f.escape(card.agentName))} asks to run ${f.code(f.escape(request.toolName))}.`),
    ...delegationBlock(card, f),
    f.paragraph(f.escape(request.description)),
  ];
  if (card.nudge !== undefined) blocks.unshift(f.paragraph(nudgeLine(card.nudge, f)));
  if (request.reason) blocks.push(f.paragraph(`Why this needs a person: ${f.escape(request.reason)}`));
  if (request.connector) blocks.push(f.paragraph(`Connector: ${f.code(f.escape(request.connector))}`));
  const claims = annotationLine(request, f);
  if (claims !== '') blocks.push(f.paragraph(claims));
  const votes = votesLine(request, f);
  if (votes !== '') blocks.push(f.paragraph(votes));
  if (request.outcomeUnknown)
    blocks.push(f.paragraph('⚠️ This call was interrupted before; it may already have had its effect.'));
  const warnings = partitionWarnings(request);
  for (const warning of warnings.request) blocks.push(f.paragraph(f.strong(`⚠️ ${f.escape(warning.message)}`)));
  if (warnings.args.length > 0) {
    blocks.push(f.paragraph(f.strong('⚠️ Check the arguments carefully:')));
    blocks.push(
      f.list(
        warnings.args.map((warning) => `${f.escape(warning.path || '(arguments)')}: ${f.escape(warning.message)}`),
      ),
    );
  }
  blocks.push(f.paragraph('Arguments:'), f.preformatted(fitEscaped(f.escape(argsJson(request.args)), ARGS_LIMIT)));
  if (links.length > 0) blocks.push(f.list(links.map((link) => f.link(link.label, link.url))));
  const where = `Run ${f.code(f.escape(card.runId))}, approval ${f.code(f.escape(request.approvalId))}.`;
  blocks.push(
    f.paragraph(
      links.length === 0
        ? `${f.escape(NO_BUTTONS_TEXT)} ${where}`
        : `Each link opens a page where you confirm; they work once, until ${new Date(card.tokens.expiresAt).toISOString()}. ${where}`,
    ),
  );
  return blocks;
}

/**
 * A question's mail: the question, its fields and what each takes, and its links (`decisionButtons`): Answer opens
 * the page with its form (the answer is given there, never by a click in the mail), Decline a page that confirms.
 */
function questionBlocks(
  card: ApprovalCard,
  question: Question,
  links: readonly DecisionLink[],
  f: MailFormat,
): string[] {
  const { request } = card;
  const where = `Run ${f.code(f.escape(card.runId))}, question ${f.code(f.escape(request.approvalId))}.`;
  return [
    ...(card.nudge === undefined ? [] : [f.paragraph(nudgeLine(card.nudge, f))]),
    f.paragraph(`${f.strong(f.escape(card.agentName))} asks you a question:`),
    ...delegationBlock(card, f),
    f.paragraph(f.escape(request.description)),
    ...(request.reason ? [f.paragraph(`Why you are asked: ${f.escape(request.reason)}`)] : []),
    f.paragraph('The answer has these fields:'),
    f.list(question.fields.map((field) => `${f.strong(f.escape(field.title))}: ${f.escape(fieldHint(field))}`)),
    ...(links.length === 0 ? [] : [f.list(links.map((link) => f.link(link.label, link.url)))]),
    f.paragraph(
      links.length === 0
        ? `${f.escape(NO_BUTTONS_TEXT)} ${where}`
        : `Answer opens a page with the form; Decline a page where you confirm. They work once, until ${new Date(card.tokens.expiresAt).toISOString()}. ${where}`,
    ),
  ];
}

/** The mail asking for a decision: what will run, and a link for each decision it offers. */
export function approvalMail(card: ApprovalCard, links: readonly DecisionLink[]): MailBody {
  return {
    text: plainFormat.document(approvalBlocks(card, links, plainFormat)),
    html: htmlFormat.document(approvalBlocks(card, links, htmlFormat)),
  };
}

/** The follow-up saying how the approval (or the call it allowed) ended. */
export function outcomeMail(outcome: CardOutcome): MailBody {
  const body = (f: MailFormat) => f.document([f.paragraph(outcomeLine(outcome, f))]);
  return { text: body(plainFormat), html: body(htmlFormat) };
}

import type { ApprovalRequest } from '../machine/types.js';

/**
 * The `action_id`s of the buttons the Slack notifier posts; `POST /slack/actions` acts only on these.
 *
 * @example
 * const approveButton = message.blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === SLACK_ACTION_IDS.approve);
 */
export const SLACK_ACTION_IDS = { approve: 'countersign_approve', deny: 'countersign_deny' } as const;

/** Slack's limit on a section block's text. */
export const SLACK_SECTION_LIMIT = 3000;

/**
 * Escapes Slack's control characters (`&`, `<`, `>`) so text a model wrote
 * cannot become a mention (`<!channel>`), a link or a user reference.
 *
 * @example
 * escapeSlack('<!channel> & <script>'); // '&lt;!channel&gt; &amp; &lt;script&gt;'
 */
export function escapeSlack(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

/**
 * How a decider reads in Slack: a Slack user (`slack:U123`) as a mention, anyone else as escaped text.
 *
 * @example
 * slackWho('slack:U123'); // '<@U123>'
 * slackWho('alice <a@x>'); // 'alice &lt;a@x&gt;'
 */
export function slackWho(by: string | undefined): string {
  if (by === undefined) return 'someone';
  const user = /^slack:([A-Z0-9]{1,64})$/.exec(by);
  return user ? `<@${user[1]}>` : escapeSlack(by);
}

/** Cuts escaped text to `limit` characters, never inside an entity, saying that it was cut. */
export function fitSlack(escaped: string, limit: number, closing = ''): string {
  if (escaped.length + closing.length <= limit) return escaped + closing;
  const note = `\n… (cut: ${escaped.length} characters in all)`;
  const kept = escaped.slice(0, Math.max(0, limit - closing.length - note.length)).replace(/&[a-z]{0,3}$/, '');
  return kept + closing + note;
}

function argsJson(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    text = String(args);
  }
  // A backtick inside a string would close the code block; \u0060 is the same JSON value.
  return text.replace(/`/g, '\\u0060');
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true }) as const;
const plain = (text: string) => ({ type: 'plain_text', text, emoji: false }) as const;

/**
 * The Block Kit message that asks a channel to decide one approval: tool,
 * description, the redacted display arguments as JSON, warnings, expiry and
 * Approve / Deny buttons carrying one-click link tokens. Everything from the
 * request is escaped and every text fits Slack's limits.
 *
 * @example
 * const message = approvalMessage({ runId, agentName: 'files', request, tokens: { approve, deny }, expiresAt });
 * await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
 */
export function approvalMessage(input: {
  readonly runId: string;
  readonly agentName: string;
  readonly request: ApprovalRequest;
  readonly tokens: { readonly approve: string; readonly deny: string };
  readonly expiresAt: number;
}): { readonly text: string; readonly blocks: readonly Record<string, unknown>[] } {
  const { runId, agentName, request, tokens, expiresAt } = input;
  const tool = escapeSlack(request.toolName);
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: plain('Approval needed') },
    {
      type: 'section',
      text: mrkdwn(
        fitSlack(
          `*${tool}* wants to run for agent *${escapeSlack(agentName)}*.\n${escapeSlack(request.description)}` +
            (request.reason ? `\n_Why a person decides:_ ${escapeSlack(request.reason)}` : '') +
            (request.outcomeUnknown ? '\n:grey_question: This call was interrupted before; it may or may not have had its effect.' : ''),
          SLACK_SECTION_LIMIT,
        ),
      ),
    },
    { type: 'section', text: mrkdwn('```' + fitSlack(escapeSlack(argsJson(request.args)), SLACK_SECTION_LIMIT - 3, '```')) },
  ];
  if (request.warnings.length > 0) {
    const lines = request.warnings.map((warning) => `• \`${escapeSlack(warning.path || '(arguments)')}\`: ${escapeSlack(warning.message)}`);
    blocks.push({ type: 'section', text: mrkdwn(fitSlack(`:warning: *Check the arguments carefully:*\n${lines.join('\n')}`, SLACK_SECTION_LIMIT)) });
  }
  const seconds = Math.floor(expiresAt / 1000);
  blocks.push({
    type: 'context',
    elements: [
      mrkdwn(
        fitSlack(
          `Run \`${escapeSlack(runId)}\` · approval \`${escapeSlack(request.approvalId)}\` · buttons work once, until ` +
            `<!date^${seconds}^{date_short_pretty} {time}|${new Date(expiresAt).toISOString()}>`,
          SLACK_SECTION_LIMIT,
        ),
      ),
    ],
  });
  blocks.push({
    type: 'actions',
    block_id: 'countersign_decision',
    elements: [
      { type: 'button', action_id: SLACK_ACTION_IDS.approve, text: plain('Approve'), style: 'primary', value: tokens.approve },
      { type: 'button', action_id: SLACK_ACTION_IDS.deny, text: plain('Deny'), style: 'danger', value: tokens.deny },
    ],
  });
  return { text: fitSlack(`Approval needed: ${tool}: ${escapeSlack(request.description)}`, 300), blocks };
}

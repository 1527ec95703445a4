// Slack interactions as Slack sends them: a form body with payload=<JSON>, signed v0 with the app's signing secret,
// and the route's background work awaited through waitUntil, so no test polls.
import { createHmac } from 'node:crypto';
import type { ChannelRoute } from 'countersign/channels';
import { SLACK_ACTION_IDS } from 'countersign/slack';
import type { SlackRequest } from '../../support/fake-slack.js';

export const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
/** The route's clock: Slack timestamps are checked against it, so no test sleeps. */
export const NOW_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
export const NOW_S = Math.floor(NOW_MS / 1000);

export interface Button {
  readonly action_id: string;
  readonly value: string;
  readonly style?: string;
  readonly text: { readonly text: string };
}

/** The buttons of a card the fake Slack was sent, with their block's id. */
export function buttonsOf(card: SlackRequest): { readonly blockId: string; readonly buttons: readonly Button[] } {
  const blocks = card.json['blocks'] as { type: string; block_id?: string; elements?: Button[] }[];
  // A card whose request offers no decision a button makes has no actions block.
  const actions = blocks.find((block) => block.type === 'actions');
  return { blockId: actions?.block_id ?? '', buttons: actions?.elements ?? [] };
}

/** A button of a card by its kind. */
export function button(
  card: SlackRequest,
  which: keyof typeof SLACK_ACTION_IDS,
): Button & { readonly blockId: string } {
  const { blockId, buttons } = buttonsOf(card);
  return { ...buttons.find((item) => item.action_id === SLACK_ACTION_IDS[which])!, blockId };
}

/** A block_actions payload for a click on `value`, from the card `message` when given. */
export function blockActions(input: {
  readonly value: string;
  readonly actionId?: string;
  readonly blockId?: string;
  readonly user?: string;
  readonly responseUrl: string;
  readonly message?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: input.user ?? 'U123', username: 'alice', team_id: 'T000' },
    api_app_id: 'A000',
    container: { type: 'message', message_ts: '1700000000.000001', channel_id: 'C000', is_ephemeral: false },
    trigger_id: '123.456.abc',
    team: { id: 'T000', domain: 'example' },
    channel: { id: 'C000', name: 'approvals' },
    response_url: input.responseUrl,
    ...(input.message === undefined ? {} : { message: { type: 'message', ts: '1700000000.000001', ...input.message } }),
    actions: [
      {
        action_id: input.actionId ?? SLACK_ACTION_IDS.approve,
        block_id: input.blockId ?? 'countersign_decision',
        text: { type: 'plain_text', text: 'Approve', emoji: false },
        value: input.value,
        type: 'button',
        action_ts: '1700000001.000001',
      },
    ],
  };
}

/** The view_submission of a deny modal that was opened with `view`, its reason typed as `reason`. */
export function viewSubmission(
  view: Record<string, unknown>,
  user: string,
  reason: string | null,
): Record<string, unknown> {
  return {
    type: 'view_submission',
    user: { id: user, username: 'bob', team_id: 'T000' },
    api_app_id: 'A000',
    view: {
      ...view,
      id: 'V000',
      state: { values: { reason: { reason: { type: 'plain_text_input', value: reason } } } },
    },
  };
}

interface InputBlock {
  readonly type: string;
  readonly block_id: string;
  readonly label: { readonly text: string };
  readonly hint?: { readonly text: string };
  readonly element: {
    readonly type: string;
    readonly action_id: string;
    readonly options?: { text: { text: string }; value: string }[];
  };
}

/** The input blocks of a modal views.open was asked to open. */
export const inputBlocks = (view: Record<string, unknown>) =>
  (view['blocks'] as InputBlock[]).filter((block) => block.type === 'input');

/** What a person reads of a modal: its section, and each input's label, hint and options. */
export function modalText(view: Record<string, unknown>): string {
  const blocks = view['blocks'] as (InputBlock & { text?: { text: string } })[];
  return blocks
    .flatMap((block) => [
      block.text?.text,
      block.label?.text,
      block.hint?.text,
      ...(block.element?.options ?? []).map((option) => option.text.text),
    ])
    .filter((text) => text !== undefined)
    .join('\n');
}

/**
 * The view_submission of an answer modal opened with `view`, each field given `values[field]` the way its element
 * reports it (a picked option, typed text, a date, ticked boxes); a value the element does not offer is sent as
 * picked anyway, as a forged submission would.
 */
export function answerSubmission(
  view: Record<string, unknown>,
  user: string,
  values: Readonly<Record<string, string | readonly string[]>>,
): Record<string, unknown> {
  const state: Record<string, Record<string, unknown>> = {};
  for (const block of inputBlocks(view)) {
    const given = values[block.block_id];
    if (given === undefined) continue;
    const { type, action_id } = block.element;
    const picked = (value: string) => ({ text: { type: 'plain_text', text: value }, value });
    const list = typeof given === 'string' ? [given] : given;
    const element =
      type === 'static_select'
        ? { type, selected_option: picked(list[0]!) }
        : type === 'checkboxes' || type === 'multi_static_select'
          ? { type, selected_options: list.map(picked) }
          : type === 'datepicker'
            ? { type, selected_date: list[0] }
            : { type, value: list[0] };
    state[block.block_id] = { [action_id]: element };
  }
  return {
    type: 'view_submission',
    user: { id: user, username: 'carol', team_id: 'T000' },
    api_app_id: 'A000',
    view: { ...view, id: 'V001', state: { values: state } },
  };
}

/** A request as Slack signs it; `at` (seconds), `secret` and `headers` change what is signed or sent. */
export function signedRequest(
  url: string,
  payload: unknown,
  options: {
    readonly at?: number;
    readonly secret?: string;
    readonly headers?: Record<string, string>;
    readonly body?: string;
  } = {},
): Request {
  const body = options.body ?? new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const at = String(options.at ?? NOW_S);
  const signature = `v0=${createHmac('sha256', options.secret ?? SIGNING_SECRET)
    .update(`v0:${at}:${body}`)
    .digest('hex')}`;
  return new Request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': at,
      'x-slack-signature': signature,
      ...options.headers,
    },
    body,
  });
}

/** Hands `request` to the route and waits for the work it started in the background. */
export async function interact(route: ChannelRoute, request: Request): Promise<Response> {
  const pending: Promise<unknown>[] = [];
  const response = await route.fetch(request, { waitUntil: (work) => void pending.push(work) });
  await Promise.all(pending);
  return response;
}

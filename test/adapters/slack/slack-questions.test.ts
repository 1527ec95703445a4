// Questions in Slack beyond the contract: the modal's element for every kind of field, a whole form answered with its
// values typed, each problem of a refused one under its own field, a forged modal whose token asks nothing, and an
// Answer click where no bot token can open the modal.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelRoute } from 'countersign/channels';
import { createSlackActions, createSlackNotifier, SLACK_ACTION_IDS } from 'countersign/slack';
import { BOT_TOKEN, renderMrkdwn, startFakeSlack, type FakeSlack } from '../../support/fake-slack.js';
import { questionWorld, WHOLE_FORM } from '../../support/question-world.js';
import {
  answerSubmission,
  blockActions,
  button,
  inputBlocks,
  interact,
  NOW_MS,
  signedRequest,
  SIGNING_SECRET,
} from './interactions.js';

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

async function asked(options: { bot: boolean }) {
  slack = await startFakeSlack();
  const world = questionWorld();
  const { runtime } = world;
  const notifier = createSlackNotifier({
    runtime,
    ...(options.bot ? { token: BOT_TOKEN, channel: 'C0Q', apiUrl: slack.apiUrl } : { webhookUrl: slack.webhookUrl }),
  });
  const route: ChannelRoute = createSlackActions({
    runtime,
    signingSecret: SIGNING_SECRET,
    ...(options.bot ? { token: BOT_TOKEN, apiUrl: slack.apiUrl } : {}),
    responseUrlOrigins: [slack.origin],
    clock: () => NOW_MS,
  });
  const { runId } = await world.ask(WHOLE_FORM);
  await notifier.publish(world.events);
  await notifier.flush();
  const fake = slack;
  const card = fake.messages()[0]!;
  const send = (payload: unknown) => interact(route, signedRequest(`${fake.origin}/slack/actions`, payload));
  const clickAnswer = async () => {
    const pressed = button(card, 'answer');
    await send(
      blockActions({
        value: pressed.value,
        actionId: SLACK_ACTION_IDS.answer,
        blockId: pressed.blockId,
        user: 'U7',
        responseUrl: fake.responseUrl(),
      }),
    );
    return fake.calls('views.open').at(-1)?.json['view'] as Record<string, unknown> | undefined;
  };
  return { world, runId, card, send, clickAnswer, fake };
}

describe('a question in Slack', () => {
  it("opens a modal with each field's own element and records the whole answer, typed", async () => {
    const { world, runId, clickAnswer, send, fake } = await asked({ bot: true });
    const view = (await clickAnswer())!;
    expect(inputBlocks(view).map((block) => [block.block_id, block.element.type])).toEqual([
      ['region', 'static_select'],
      ['zones', 'checkboxes'],
      ['name', 'plain_text_input'],
      ['note', 'plain_text_input'],
      ['nodes', 'number_input'],
      ['public', 'checkboxes'],
      ['launch', 'datepicker'],
    ]);
    expect(inputBlocks(view)[3]!.element).toMatchObject({ multiline: true, max_length: 2000 });
    expect(inputBlocks(view)[4]!.element).toMatchObject({ is_decimal_allowed: false, min_value: '1', max_value: '9' });
    const response = await send(
      answerSubmission(view, 'U7', {
        region: 'eu-west-1',
        zones: ['b', 'c'],
        name: 'blue',
        nodes: '5',
        public: ['true'],
        launch: '2026-05-01',
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(await world.state(runId)).toMatchObject({
      status: 'approved',
      by: 'slack:U7',
      answer: { region: 'eu-west-1', zones: ['b', 'c'], name: 'blue', nodes: 5, public: true, launch: '2026-05-01' },
    });
    expect(renderMrkdwn(String(fake.responses().at(-1)!.json['text']))).toMatch(/^Answered by @U7/);
  });

  it('keeps the modal open with each problem under its field, and records nothing', async () => {
    const { world, runId, clickAnswer, send } = await asked({ bot: true });
    const view = (await clickAnswer())!;
    const response = await send(
      answerSubmission(view, 'U7', { region: 'mars-1', zones: ['a'], name: 'blue', nodes: '4.5', launch: 'soon' }),
    );
    expect(await response.json()).toEqual({
      response_action: 'errors',
      errors: {
        region: 'Region must be one of eu-west-1, us-east-1, ap-south-1',
        nodes: 'nodes must be a whole number',
        launch: 'launch must be a date, YYYY-MM-DD',
      },
    });
    expect((await world.runtime.get(runId)).audit).toEqual([]);
  });

  it('answers nothing for a modal whose token asks no question, and says so', async () => {
    const { world, runId, clickAnswer, send, fake } = await asked({ bot: true });
    const view = (await clickAnswer())!;
    const other = await world.runtime.requestApproval({ tool: 'deploy', args: { service: 'billing' } });
    const { request } = (await other.status()) as { request: { approvalId: string } };
    const tokens = await world.runtime.linkTokens(other.id, request.approvalId);
    const forged = {
      ...view,
      private_metadata: JSON.stringify({ token: tokens.approve, responseUrl: fake.responseUrl(), updated: true }),
    };
    await send(answerSubmission(forged, 'U7', { region: 'eu-west-1' }));
    expect(await other.status()).toMatchObject({ status: 'pending' });
    expect(String(fake.responses().at(-1)!.json['text'])).toBe('This approval asks no question; nothing was done.');
    expect((await world.state(runId)).status).toBe('pending');
  });

  it('tells the clicker where to answer when no bot token can open the modal', async () => {
    const { world, runId, clickAnswer, fake } = await asked({ bot: false });
    expect(await clickAnswer()).toBeUndefined();
    expect(String(fake.responses().at(-1)!.json['text'])).toMatch(/answer it in the approval console/);
    expect((await world.state(runId)).status).toBe('pending');
  });
});

// The channel contract for Slack, once with a bot (cards edited with chat.update, Deny asking why in a modal) and
// once with an incoming webhook (outcomes posted as lines, a click's answer replacing the card), against a fake
// Slack on loopback.
import {
  createSlackActions,
  createSlackNotifier,
  SLACK_ACTION_IDS,
  type SlackNotifierOptions,
} from 'countersign/slack';
import {
  channelContract,
  HOSTILE_TEXT,
  QUESTION,
  type ChannelHarness,
  type Delivery,
} from '../../support/channel-contract.js';
import {
  activeMrkdwn,
  blockTexts,
  BOT_TOKEN,
  renderMrkdwn,
  startFakeSlack,
  type SlackRequest,
} from '../../support/fake-slack.js';
import {
  answerSubmission,
  blockActions,
  button,
  inputBlocks,
  modalText,
  buttonsOf,
  interact,
  NOW_MS,
  signedRequest,
  SIGNING_SECRET,
  viewSubmission,
} from './interactions.js';

function harness(mode: 'bot' | 'webhook'): ChannelHarness {
  return {
    name: `slack (${mode})`,
    // What this mode is configured with (the webhook URL's path is its secret).
    secrets: mode === 'bot' ? [BOT_TOKEN, SIGNING_SECRET] : ['/services/T000/B000/secretpath', SIGNING_SECRET],
    async setup(runtime, { faults = [], echoSecretsInErrors = false }) {
      const faulted = new Set<SlackRequest>();
      let next = 0;
      const slack = await startFakeSlack((request) => {
        const posting = request.path === '/api/chat.postMessage' || request.path.startsWith('/services/');
        const fault = posting ? faults[next++] : undefined;
        if (fault === undefined) return undefined;
        faulted.add(request);
        const body = echoSecretsInErrors
          ? mode === 'bot'
            ? `invalid token ${BOT_TOKEN}`
            : `no_service for ${slack.webhookUrl} (path /services/T000/B000/secretpath)`
          : 'refused';
        return {
          status: fault.status,
          body,
          headers: fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
        };
      });
      const sleeps: number[] = [];
      const errors: unknown[] = [];
      const options: SlackNotifierOptions = {
        runtime,
        ...(mode === 'bot'
          ? { token: BOT_TOKEN, channel: 'C0APPROVALS', apiUrl: slack.apiUrl }
          : { webhookUrl: slack.webhookUrl }),
        sleep: async (ms) => void sleeps.push(ms),
        onError: (error) => errors.push(error),
      };
      const notifier = createSlackNotifier(options);
      const route = createSlackActions({
        runtime,
        signingSecret: SIGNING_SECRET,
        ...(mode === 'bot' ? { token: BOT_TOKEN, apiUrl: slack.apiUrl } : {}),
        responseUrlOrigins: [slack.origin],
        clock: () => NOW_MS,
      });
      const sent = () =>
        slack.requests.filter(
          (request) =>
            !faulted.has(request) &&
            (request.path === '/api/chat.postMessage' ||
              request.path === '/api/chat.update' ||
              request.path.startsWith('/services/')),
        );
      const isCard = (request: SlackRequest) =>
        request.path !== '/api/chat.update' && Array.isArray(request.json['blocks']);
      const send = (payload: unknown) => interact(route, signedRequest(`${slack.origin}/slack/actions`, payload));
      return {
        notifier,
        another: () => createSlackNotifier(options),
        deliveries: () =>
          sent().map((request): Delivery => {
            const texts = blockTexts(request.json);
            return {
              kind: isCard(request) ? 'post' : 'update',
              visible: texts.map(renderMrkdwn).join('\n'),
              active: [...texts, String(request.json['text'] ?? '')].flatMap((text) =>
                activeMrkdwn(text, `${HOSTILE_TEXT}\n${QUESTION}`),
              ),
            };
          }),
        sleeps,
        errors,
        async click(index, which, user) {
          const card = sent().filter(isCard)[index]!;
          const kind = which === 'wider' ? 'approveForRun' : which;
          const pressed = button(card, kind);
          const before = slack.responses().length;
          await send(
            blockActions({
              value: pressed.value,
              actionId: SLACK_ACTION_IDS[kind],
              blockId: pressed.blockId,
              user,
              responseUrl: slack.responseUrl(),
              message: { blocks: card.json['blocks'] },
            }),
          );
          const modal = slack.calls('views.open').at(-1);
          if (which === 'deny' && mode === 'bot')
            await send(viewSubmission(modal!.json['view'] as Record<string, unknown>, user, null));
          return renderMrkdwn(String(slack.responses()[before]!.json['text']));
        },
        ...(mode === 'bot'
          ? {
              async answer(index: number, value: string, user: string) {
                const card = sent().filter(isCard)[index]!;
                const pressed = button(card, 'answer');
                const [responses, modals] = [slack.responses().length, slack.calls('views.open').length];
                await send(
                  blockActions({
                    value: pressed.value,
                    actionId: SLACK_ACTION_IDS.answer,
                    blockId: pressed.blockId,
                    user,
                    responseUrl: slack.responseUrl(),
                    message: { blocks: card.json['blocks'] },
                  }),
                );
                const told = () => renderMrkdwn(String(slack.responses()[responses]?.json['text'] ?? ''));
                const modal = slack.calls('views.open')[modals];
                if (modal === undefined) return { form: '', told: told() };
                const view = modal.json['view'] as Record<string, unknown>;
                const field = inputBlocks(view)[0]!.block_id;
                const submitted = await send(answerSubmission(view, user, { [field]: value }));
                const body = (await submitted.text()) || '{}';
                const errors = (JSON.parse(body) as { errors?: Record<string, string> }).errors;
                return {
                  form: modalText(view),
                  told: errors === undefined ? told() : Object.values(errors).join('; '),
                };
              },
            }
          : {}),
        buttons: (index) => buttonsOf(sent().filter(isCard)[index]!).buttons.map((item) => item.text.text),
        decider: (user) => `slack:${user}`,
        async close() {
          await notifier.flush();
          await slack.close();
        },
      };
    },
  };
}

channelContract(harness('bot'));
channelContract(harness('webhook'));

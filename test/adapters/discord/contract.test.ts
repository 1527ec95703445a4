import { expect, it } from 'vitest';
import { createDiscordInteractions, createDiscordNotifier } from 'countersign/discord';
import type { LinkedRuntime } from 'countersign';
import { channelContract, HOSTILE_TEXT, type ChannelHarness, type Delivery } from '../../support/channel-contract.js';
import { escapeDiscord } from '../../../src/channels/discord/discord-markup.js';
import { renderDiscord, renderMessage, startDiscordApp } from './discord-client.js';
import { APPLICATION_ID, CHANNEL_ID, DISCORD_BOT_TOKEN, startFakeDiscord } from './fake-discord.js';

/** Discord user ids are snowflakes: the contract's `U1` is user 1001. */
const userId = (user: string) => String(1000 + Number(user.replace(/\D/g, '')));

/** A part of a modal as Discord sends it: a row of text inputs, or a label around a select. */
interface ModalPart {
  readonly type: number;
  readonly label?: string;
  readonly description?: string;
  readonly components?: { custom_id: string; label: string; placeholder?: string }[];
  readonly component?: { custom_id: string; options: { label: string; value: string }[] };
}

/** What a person reads of a modal's part: labels, hints, options. */
const partText = (part: ModalPart) => [
  part.label ?? '',
  part.description ?? '',
  ...(part.components ?? []).flatMap((input) => [input.label, input.placeholder ?? '']),
  ...(part.component?.options ?? []).map((option) => option.label),
];

/** A part of a modal as its submission carries it, `value` typed or picked (picked as sent, offered or not). */
const submit = (part: ModalPart, value: string) =>
  part.type === 18
    ? { type: 18, component: { type: 3, custom_id: part.component!.custom_id, values: [value] } }
    : { type: 1, components: part.components!.map((input) => ({ type: 4, custom_id: input.custom_id, value })) };

const harness: ChannelHarness = {
  name: 'discord',
  secrets: [DISCORD_BOT_TOKEN],
  async setup(runtime: LinkedRuntime, { faults, echoSecretsInErrors }) {
    const fake = await startFakeDiscord({
      ...(faults ? { faults } : {}),
      ...(echoSecretsInErrors ? { echoSecretsInErrors } : {}),
    });
    const sleeps: number[] = [];
    const errors: unknown[] = [];
    const notifier = () =>
      createDiscordNotifier({
        runtime,
        botToken: DISCORD_BOT_TOKEN,
        channelId: CHANNEL_ID,
        apiUrl: fake.apiUrl,
        sleep: async (ms) => void sleeps.push(ms),
        onError: (error) => void errors.push(error),
      });
    const app = await startDiscordApp((publicKey) =>
      createDiscordInteractions({ runtime, publicKey, applicationId: APPLICATION_ID, apiUrl: fake.apiUrl }),
    );
    let interactions = 0;
    const interact = async (body: Record<string, unknown>, user: string) => {
      const token = `interaction-token-${++interactions}`;
      const response = await app.send({
        ...body,
        id: String(interactions),
        application_id: APPLICATION_ID,
        token,
        member: { user: { id: userId(user) } },
      });
      await app.settle();
      return { answer: (await response.json()) as { type: number; data?: { custom_id: string } }, token };
    };
    const told = (token: string) =>
      renderMessage(
        fake.requests.find((request) => request.path.startsWith(`/webhooks/${APPLICATION_ID}/${token}`))?.json ?? {},
      ).visible;
    return {
      notifier: notifier(),
      another: notifier,
      deliveries: () =>
        fake.requests
          .filter((request) => fake.posts().includes(request) || request.method === 'PATCH')
          .map(
            (request): Delivery => ({
              kind: request.method === 'POST' ? 'post' : 'update',
              ...renderMessage(request.json),
            }),
          ),
      sleeps,
      errors,
      async click(index, button, user) {
        const { components } = (fake.posts()[index]!.json as { components: { components: { custom_id: string }[] }[] })
          .components[0]!;
        const customId =
          components[button === 'approve' ? 0 : button === 'wider' ? 1 : components.length - 1]!.custom_id;
        const clicked = await interact({ type: 3, data: { custom_id: customId, component_type: 2 } }, user);
        if (clicked.answer.type !== 9) return told(clicked.token);
        const reason = { type: 1, components: [{ type: 4, custom_id: 'reason', value: 'not today' }] };
        const submitted = await interact(
          { type: 5, data: { custom_id: clicked.answer.data!.custom_id, components: [reason] } },
          user,
        );
        return told(submitted.token);
      },
      async answer(index, value, user) {
        const row = (
          fake.posts()[index]!.json as { components: { components: { label: string; custom_id: string }[] }[] }
        ).components[0]!.components;
        const pressed = row.find((item) => item.label === 'Answer')!;
        const clicked = await interact({ type: 3, data: { custom_id: pressed.custom_id, component_type: 2 } }, user);
        if (clicked.answer.type !== 9) return { form: '', told: told(clicked.token) };
        const modal = clicked.answer.data as unknown as { custom_id: string; title: string; components: ModalPart[] };
        const form = [modal.title, ...modal.components.flatMap(partText)].join('\n');
        const submitted = await interact(
          {
            type: 5,
            data: { custom_id: modal.custom_id, components: modal.components.map((part) => submit(part, value)) },
          },
          user,
        );
        const privately = submitted.answer as { type: number; data?: { content?: string } };
        return {
          form,
          told: privately.type === 4 ? renderDiscord(privately.data!.content!).visible : told(submitted.token),
        };
      },
      buttons: (index) =>
        (fake.posts()[index]!.json as { components: { components: { label: string }[] }[] }).components.flatMap((row) =>
          row.components.map((item) => item.label),
        ),
      decider: (user) => `discord:${userId(user)}`,
      async close() {
        await app.close();
        await fake.close();
      },
    };
  },
};

channelContract(harness);

it('the contract sees through Discord markup: the unescaped text would be live, the escaped text reads as written', () => {
  expect(renderDiscord(HOSTILE_TEXT).active).not.toEqual([]);
  expect(renderDiscord(`@everyone <@123> <#456>`, { parse: [] }).active).toEqual(['<@123>', '<#456>']);
  expect(renderDiscord('@everyone').active).toEqual(['@everyone']);
  const escaped = renderDiscord(escapeDiscord(HOSTILE_TEXT));
  expect(escaped).toEqual({ visible: HOSTILE_TEXT, active: [] });
});

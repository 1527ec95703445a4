// Questions in Discord beyond the contract: Answer opens a modal of text inputs and a string select whose submission
// arrives typed, and a form no modal holds links to its page (baseUrl) instead of offering Answer.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDiscordInteractions, createDiscordNotifier } from 'countersign/discord';
import { questionWorld, WHOLE_FORM } from '../../support/question-world.js';
import { startDiscordApp } from './discord-client.js';
import { APPLICATION_ID, CHANNEL_ID, DISCORD_BOT_TOKEN, startFakeDiscord } from './fake-discord.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const FORM = z.object({
  region: z.enum(['eu-west-1', 'us-east-1']).meta({ title: 'Region' }),
  nodes: z.number().int().min(1).max(9).meta({ title: 'Nodes' }),
  note: z.string().max(500).optional().meta({ title: 'Note' }),
});

async function asked(form: z.ZodObject, baseUrl?: string) {
  const fake = await startFakeDiscord();
  const world = questionWorld();
  const notifier = createDiscordNotifier({
    runtime: world.runtime,
    botToken: DISCORD_BOT_TOKEN,
    channelId: CHANNEL_ID,
    apiUrl: fake.apiUrl,
    ...(baseUrl === undefined ? {} : { baseUrl }),
  });
  const app = await startDiscordApp((publicKey) =>
    createDiscordInteractions({
      runtime: world.runtime,
      publicKey,
      applicationId: APPLICATION_ID,
      apiUrl: fake.apiUrl,
    }),
  );
  open.push(app, fake);
  const { runId } = await world.ask(form);
  await notifier.publish(world.events);
  await notifier.flush();
  const row = () =>
    (fake.posts()[0]!.json as { components: { components: { label: string; custom_id?: string; url?: string }[] }[] })
      .components[0]!.components;
  let next = 0;
  const interact = async (body: Record<string, unknown>) => {
    const response = await app.send({
      ...body,
      id: String(++next),
      application_id: APPLICATION_ID,
      token: `t-${next}`,
      member: { user: { id: '1007' } },
    });
    await app.settle();
    return (await response.json()) as { type: number; data?: Record<string, unknown> };
  };
  return { world, runId, row, interact };
}

describe('a question in Discord', () => {
  it('opens a modal of a string select and text inputs, and records its submission typed', async () => {
    const { world, runId, row, interact } = await asked(FORM);
    expect(row().map((button) => button.label)).toEqual(['Answer', 'Decline…']);
    const modal = await interact({ type: 3, data: { custom_id: row()[0]!.custom_id, component_type: 2 } });
    expect(modal.type).toBe(9);
    const parts = modal.data!['components'] as {
      type: number;
      component?: { type: number };
      components?: { type: number; style: number }[];
    }[];
    expect(parts.map((part) => [part.type, part.component?.type ?? part.components![0]!.type])).toEqual([
      [18, 3],
      [1, 4],
      [1, 4],
    ]);
    expect(parts[2]!.components![0]!.style).toBe(2);
    const submitted = await interact({
      type: 5,
      data: {
        custom_id: modal.data!['custom_id'],
        components: [
          { type: 18, component: { type: 3, custom_id: 'region', values: ['eu-west-1'] } },
          { type: 1, components: [{ type: 4, custom_id: 'nodes', value: '3' }] },
          { type: 1, components: [{ type: 4, custom_id: 'note', value: '' }] },
        ],
      },
    });
    expect(submitted.type).toBe(6);
    expect(await world.state(runId)).toMatchObject({
      status: 'approved',
      by: 'discord:1007',
      answer: { region: 'eu-west-1', nodes: 3 },
    });
  });

  it('links a form no modal holds to its page, with Decline', async () => {
    const { row } = await asked(WHOLE_FORM, 'https://approvals.example.com');
    const [answer, decline] = row();
    expect(answer).toMatchObject({ label: 'Answer on its page', style: 5 });
    expect(answer!.url!.startsWith('https://approvals.example.com/links/')).toBe(true);
    expect(decline!.label).toBe('Decline…');
  });
});

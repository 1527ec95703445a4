// The console with personal tokens: a person signs in with their token and decides under its name (a name typed
// beside it is never recorded); the shared token signs nobody in; revoking the token ends the session it opened.
import { describe, expect, it } from 'vitest';
import { personWorld, SHARED } from './person-world.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>, cookie?: string) => ({
  method: 'POST',
  headers: { ...FORM, ...(cookie === undefined ? {} : { cookie }) },
  body: new URLSearchParams(fields).toString(),
});

async function signedIn(world: ReturnType<typeof personWorld>, fields: Record<string, string>) {
  const response = await world.app.request('/console/session', form(fields));
  const pair = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { response, pair };
}

const csrfOf = async (world: ReturnType<typeof personWorld>, pair: string) =>
  /data-csrf="([^"]+)"/.exec(await (await world.app.request('/', { headers: { cookie: pair } })).text())?.[1];

describe('console sign-in with personal tokens', () => {
  it('asks for a personal token and no name', async () => {
    const page = await (await personWorld().app.request('/')).text();
    expect(page).toContain('Your personal token');
    expect(page).not.toContain('name="name"');
  });

  it('signs a person in under the name on their token, whatever name was typed, and decides as them', async () => {
    const world = personWorld();
    const { token } = await world.runtime.personTokens!.issue({ person: 'ana@example.com' });
    const target = await world.paused();
    const { response, pair } = await signedIn(world, { token, name: 'the-cfo' });
    expect(response.status).toBe(303);
    const csrf = (await csrfOf(world, pair))!;
    const decided = await world.app.request('/console/decide', form({ ...target, decision: 'approve', csrf }, pair));
    expect(decided.status).toBe(303);
    expect((await world.runtime.get(target.runId)).audit[0]).toMatchObject({
      by: 'ana@example.com',
      decision: 'approved',
    });
  });

  it('refuses the shared token and a revoked token; signs in with the shared token and a name under sharedTokenDecides', async () => {
    const world = personWorld();
    const shared = await signedIn(world, { token: SHARED, name: 'the-cfo' });
    expect(shared.response.status).toBe(401);
    expect(shared.response.headers.get('set-cookie')).toBeNull();
    const { token, record } = await world.runtime.personTokens!.issue({ person: 'ana' });
    await world.runtime.personTokens!.revoke(record.id);
    expect((await signedIn(world, { token, name: 'ana' })).response.status).toBe(401);
    const open = personWorld({ app: { sharedTokenDecides: true } });
    expect((await signedIn(open, { token: SHARED, name: 'ops' })).response.status).toBe(303);
  });

  it('ends the session when its token is revoked: the page asks to sign in again and a decision is refused', async () => {
    const world = personWorld();
    const { token, record } = await world.runtime.personTokens!.issue({ person: 'ana' });
    const target = await world.paused();
    const { pair } = await signedIn(world, { token });
    const csrf = (await csrfOf(world, pair))!;
    await world.runtime.personTokens!.revoke(record.id);
    const page = await world.app.request('http://localhost/', { headers: { cookie: pair, accept: 'text/html' } });
    expect(page.status).toBe(303);
    expect(page.headers.get('set-cookie')).toMatch(/countersign_console=;/);
    const decided = await world.app.request('/console/decide', form({ ...target, decision: 'approve', csrf }, pair));
    expect(decided.status).toBe(401);
    expect(await decided.json()).toMatchObject({ code: 'console_signed_out' });
    expect((await world.runtime.get(target.runId)).audit).toEqual([]);
    const read = await world.app.request(`/runs/${target.runId}`, { headers: { cookie: pair } });
    expect(read.status).toBe(401);
  });
});

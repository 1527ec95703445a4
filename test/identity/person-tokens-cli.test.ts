// The CLI and personal tokens: `tokens issue|list|revoke` on the runtime module, and `approve` over HTTP with a
// personal token recorded as its person (an --by naming anyone else is refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServeHandle } from 'countersign/http';
import { runCliCaptured } from '../support/cli-run.js';
import { personWorld, type PersonWorld } from './person-world.js';

let world: PersonWorld;
let server: ServeHandle;
beforeAll(async () => {
  world = personWorld();
  server = await serve(world.app, { port: 0 });
});
afterAll(() => server.close());

const onRuntime = (argv: string[]) =>
  runCliCaptured(argv, { runtime: world.runtime, env: { COUNTERSIGN_RUNTIME: './runtime.js' } });

describe('countersign tokens', () => {
  it('issues a token printed once, lists it without its secret, and revokes it', async () => {
    const issued = await onRuntime(['tokens', 'issue', 'ana@example.com', '--label', 'laptop', '--json']);
    expect(issued.code).toBe(0);
    const { token, record } = JSON.parse(issued.out) as { token: string; record: { id: string } };
    expect(await world.runtime.personTokens!.verify(token)).toMatchObject({ person: 'ana@example.com' });
    const listed = await onRuntime(['tokens', 'list']);
    expect(listed.out).toContain(`${record.id}  ana@example.com (laptop)  live`);
    expect(listed.out).not.toContain(token.slice(22));
    expect((await onRuntime(['tokens', 'revoke', record.id])).out).toMatch(/^revoked .* revoked 20/);
    expect(await world.runtime.personTokens!.verify(token)).toBeUndefined();
    expect((await onRuntime(['tokens', 'revoke', 'AAAAAAAAAAAAAAAA'])).code).toBe(1);
    expect((await onRuntime(['tokens', 'rotate'])).code).toBe(2);
  });
});

describe('countersign approve over HTTP with a personal token', () => {
  it("records the decision as the token's person; --by naming someone else is refused", async () => {
    const { token } = await world.runtime.personTokens!.issue({ person: 'bo' });
    const target = await world.paused();
    const env = { COUNTERSIGN_URL: server.url, COUNTERSIGN_TOKEN: token };
    const mismatch = await runCliCaptured(['approve', target.runId, target.approvalId, '--by', 'the-cfo'], { env });
    expect(mismatch).toMatchObject({ code: 1, err: expect.stringContaining('approver_mismatch') });
    const approved = await runCliCaptured(['approve', target.runId, target.approvalId], { env });
    expect(approved.code).toBe(0);
    expect((await world.runtime.get(target.runId)).audit[0]).toMatchObject({ by: 'bo', decision: 'approved' });
  });
});

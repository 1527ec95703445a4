// A failed model call is never lost: with no onError, its full error is printed once with console.error, its secrets
// redacted, and the run's message says so; with onError, that is where it goes and nothing is printed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgent, createMemoryStore, createRuntime, StopReason, type Model } from 'countersign';

const apiKey = 'sk-proj-Abc123Def456Ghi789Jkl012';
const leaky: Model = {
  generate: async () => {
    throw Object.assign(
      new Error(
        `Incorrect API key provided: ${apiKey}. Sent to https://bob:hunter2@api.example.com/v1/chat?api_key=${apiKey}&model=gpt`,
      ),
      {
        requestHeaders: { authorization: `Bearer ${apiKey}`, 'x-api-key': 'anthropic-secret-value' },
      },
    );
  },
};

// The setup fails a test that writes to the console; here console.error is what is asserted on.
const failOnOutput = vi.mocked(console.error).getMockImplementation();
beforeEach(() => {
  vi.mocked(console.error).mockImplementation(() => undefined);
});
afterEach(() => {
  vi.mocked(console.error).mockClear();
  if (failOnOutput) vi.mocked(console.error).mockImplementation(failOnOutput);
});

/** What was printed with console.error, as one text per call. */
const printed = () => vi.mocked(console.error).mock.calls.map((args) => args.map(String).join(' '));

describe('a failed model call with no onError', () => {
  it('prints the full error once with console.error, the API key, the bearer token, the URL credentials and the query secret redacted', async () => {
    const done = await createAgent({ name: 'leaky', model: leaky, tools: [] }).execute({ input: 'hi' });

    expect(done).toMatchObject({ status: 'failed', stopReason: StopReason.Error, error: { code: 'model_error' } });
    expect(done.error?.message).toBe(
      'The model call failed; the details went to console.error in the process that ran it (no onError was given), not here.',
    );
    const lines = printed();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Incorrect API key provided');
    expect(lines[0]).toContain(done.runId);
    expect(lines[0]).toContain('https://[redacted]@api.example.com/v1/chat?api_key=[redacted]&model=gpt');
    for (const secret of [apiKey, 'Abc123Def456', 'hunter2', 'anthropic-secret-value'])
      expect(lines[0]).not.toContain(secret);
  });

  it('prints nothing when onError is given, which gets the error as it is', async () => {
    const errors: unknown[] = [];
    const done = await createAgent({ name: 'leaky', model: leaky, tools: [] }).execute(
      { input: 'hi' },
      { onError: (error) => errors.push(error) },
    );

    expect(done.error?.message).toBe('The model call failed; the details went to the operator (onError), not here.');
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as Error).message)).toContain(apiKey);
    expect(printed()).toEqual([]);
  });

  it('prints from a runtime without onError, and not from one with it', async () => {
    const agent = createAgent({ name: 'leaky', model: leaky, tools: [] });
    const silent = createRuntime({ store: createMemoryStore(), agents: [agent] });
    const failed = await silent.start('leaky', { input: 'hi' });
    expect(failed.error?.message).toContain('console.error');
    expect(printed()).toHaveLength(1);
    expect(printed()[0]).not.toContain(apiKey);

    vi.mocked(console.error).mockClear();
    const errors: unknown[] = [];
    const reported = createRuntime({
      store: createMemoryStore(),
      agents: [agent],
      onError: (error) => errors.push(error),
    });
    await reported.start('leaky', { input: 'hi' });
    expect(errors).toHaveLength(1);
    expect(printed()).toEqual([]);
  });
});

// A runtime on a shared store (Redis) whose agents have no decisionSecret warns once per process:
// whatever can write to the store could otherwise approve a call. (vitest.config.ts silences this
// warning in the other suites, which make such runtimes on purpose; here process.emitWarning is spied on.)
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { createAgent, createMemoryStore, createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn } from 'countersign/testing';
import { connect, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const agent = (name: string, decisionSecret?: string) =>
  createAgent({
    name,
    model: createScriptedModel(() => textTurn('ok')),
    tools: [],
    ...(decisionSecret === undefined ? {} : { decisionSecret }),
  });

describe.skipIf(!url)('the warning about agents without decisionSecret on a shared store', () => {
  const redis = connect(url!);
  const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  afterEach(() => emitted.mockClear());
  afterAll(() => {
    emitted.mockRestore();
    redis.disconnect();
  });

  it('says nothing for a store only this process uses, or when every agent signs', () => {
    createRuntime({ agents: [agent('memory-unsigned')], store: createMemoryStore() });
    createRuntime({
      agents: [agent('redis-signed', 'decision-secret-0123456789')],
      store: createRedisStore({ redis, prefix: uniquePrefix() }),
    });
    expect(emitted).not.toHaveBeenCalled();
  });

  it('warns once per process, with a code, naming the agents without decisionSecret', () => {
    const store = createRedisStore({ redis, prefix: uniquePrefix() });
    createRuntime({ agents: [agent('payments-signed', 'decision-secret-0123456789'), agent('files-unsigned')], store });
    createRuntime({ agents: [agent('other-unsigned')], store });
    expect(emitted).toHaveBeenCalledOnce();
    const [message, options] = emitted.mock.calls[0]! as [string, { type: string; code: string }];
    expect(options).toEqual({ type: 'CountersignWarning', code: 'COUNTERSIGN_NO_DECISION_SECRET' });
    expect(message).toContain('files-unsigned');
    expect(message).not.toContain('payments-signed');
    expect(message).toContain('createAgent({ decisionSecret })');
  });
});

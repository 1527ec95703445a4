// Errors a developer meets in a first hour say what went wrong: another agent's decisionSecret is named as a possible
// cause beside an altered snapshot, a string that is not a serialized snapshot is not told to upgrade countersign, and
// a misspelt option of a public entry point is refused by name with the one it probably meant.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApprovalSignatureError,
  ConfigError,
  createAgent,
  createMemoryRuleStore,
  createMemoryStore,
  createRuntime,
  defineTool,
  deserialize,
  SnapshotError,
  serialize,
  withApprovalResponse,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { thrown } from '../support/test-kit.js';

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file',
  input: z.object({ path: z.string() }),
  execute: () => 'deleted',
});
const agentWith = (decisionSecret: string) =>
  createAgent({
    name: 'files',
    model: createScriptedModel([toolCallTurn('delete_file', { path: '/tmp/x' }), textTurn('Done.')]),
    tools: [deleteFile],
    decisionSecret,
  });
const otherSecret =
  /or was signed with a different decisionSecret \(check that the agent's decisionSecret is the one of the agent that made the run\)/;

describe('a different decisionSecret', () => {
  it('is named as a possible cause when a decision is applied with it', async () => {
    const paused = await agentWith('first-secret-0123456789abcdef').execute({ input: 'remove /tmp/x' });
    const request = paused.pendingApprovals[0]!;
    const error = thrown(() =>
      withApprovalResponse(
        paused,
        { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
        { agent: agentWith('other-secret-0123456789abcdef') },
      ),
    );
    expect(error).toBeInstanceOf(ApprovalSignatureError);
    expect((error as Error).message).toMatch(otherSecret);
  });

  it('is named as a possible cause when a decided run is resumed with it', async () => {
    const first = agentWith('first-secret-0123456789abcdef');
    const paused = await first.execute({ input: 'remove /tmp/x' });
    const request = paused.pendingApprovals[0]!;
    const decided = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
      { agent: first },
    );
    const error = await agentWith('other-secret-0123456789abcdef')
      .execute(deserialize(serialize(decided)))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApprovalSignatureError);
    expect((error as Error).message).toMatch(otherSecret);
  });
});

describe('deserialize of what is not a serialized snapshot', () => {
  it('says so, and does not tell to upgrade countersign', async () => {
    const paused = await agentWith('first-secret-0123456789abcdef').execute({ input: 'remove /tmp/x' });
    for (const text of ['{"hello":"world"}', JSON.stringify({ $schemaVersion: 'two', head: {}, messages: [] })]) {
      const error = thrown(() => deserialize(text));
      expect(error).toBeInstanceOf(SnapshotError);
      expect((error as Error).message).toMatch(/not a serialized countersign snapshot/);
      expect((error as Error).message).not.toMatch(/[Uu]pgrade/);
    }
    expect((thrown(() => deserialize(JSON.stringify(paused))) as Error).message).toMatch(
      /JSON\.stringify\?\): store serialize\(snapshot\)/,
    );
    expect(
      (thrown(() => deserialize(JSON.stringify({ $schemaVersion: 3, head: {}, messages: [] }))) as Error).message,
    ).toMatch(/written by a newer countersign.*Upgrade countersign/);
  });
});

describe('unknown options', () => {
  const model = createScriptedModel([textTurn('Hi.')]);
  const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
  const refusal = (body: () => unknown) => {
    const error = thrown(body);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: 'unknown_option' });
    return (error as Error).message;
  };

  it('createAgent refuses a misspelt key by name with the option it probably meant, also in policy and display', () => {
    expect(
      refusal(() => createAgent({ name: 'files', model, tools: [], decisionSecrett: 'x'.repeat(32) } as never)),
    ).toMatch(/createAgent: config has an unknown option decisionSecrett \(did you mean decisionSecret\?\)/);
    expect(refusal(() => createAgent({ name: 'files', model, tools: [], maxturns: 3 } as never))).toMatch(
      /maxturns \(did you mean maxTurns\?\)/,
    );
    expect(refusal(() => createAgent({ name: 'files', model, tools: [], banana: 1 } as never))).toMatch(
      /unknown option banana\.$/,
    );
    expect(refusal(() => createAgent({ name: 'files', model, tools: [], policy: { rule: [] } } as never))).toMatch(
      /policy has an unknown option rule \(did you mean rules\?\)/,
    );
    expect(
      refusal(() => createAgent({ name: 'files', model, tools: [], display: { secretKey: [] } } as never)),
    ).toMatch(/did you mean secretKeys\?/);
    expect(
      refusal(() =>
        createAgent({
          name: 'files',
          model,
          tools: [],
          policy: { rules: [{ tool: 'x', action: 'deny', wen: () => true }] },
        } as never),
      ),
    ).toMatch(/Policy rule 0: rule has an unknown option wen \(did you mean when\?\)/);
  });

  it('defineTool, execute (its input and its options), withApprovalResponse, createRuntime, runtime.pending and RuleStore.add refuse one too', async () => {
    expect(
      refusal(() =>
        defineTool({
          name: 't',
          description: 'd',
          input: z.object({}),
          execute: () => 'ok',
          needsAproval: false,
        } as never),
      ),
    ).toMatch(/did you mean needsApproval\?/);
    await expect(agent.execute({ input: 'hi', sesionId: 's1' } as never)).rejects.toThrow(
      /execute: argument has an unknown option sesionId \(did you mean sessionId\?\)/,
    );
    await expect(agent.execute({ input: 'hi' }, { onErorr: () => undefined } as never)).rejects.toThrow(
      /execute: options has an unknown option onErorr \(did you mean onError\?\)/,
    );

    const secretAgent = agentWith('first-secret-0123456789abcdef');
    const paused = await secretAgent.execute({ input: 'remove /tmp/x' });
    const request = paused.pendingApprovals[0]!;
    expect(
      refusal(() =>
        withApprovalResponse(
          paused,
          { approvalId: request.approvalId, approved: false, reasn: 'no', signature: request.signature! } as never,
          { agent: secretAgent },
        ),
      ),
    ).toMatch(/withApprovalResponse: response has an unknown option reasn \(did you mean reason\?\)/);

    expect(
      refusal(() => createRuntime({ agents: [agent], store: createMemoryStore(), onErrors: () => undefined } as never)),
    ).toMatch(/createRuntime: argument has an unknown option onErrors \(did you mean onError\?\)/);
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
    await expect(runtime.pending({ limt: 5 } as never)).rejects.toThrow(/unknown option limt \(did you mean limit\?\)/);
    await expect(
      createMemoryRuleStore().add({ tool: 'delete_file', action: 'deny', reson: 'no' } as never),
    ).rejects.toThrow(/RuleStore\.add: rule has an unknown option reson \(did you mean reason\?\)/);
  });
});

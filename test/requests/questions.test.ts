// Questions with typed answers: requestInput and askHuman ask a person for a value per field; the form is signed with
// the request, an answer is checked where it is recorded (and typed where it comes back), and a bad one is refused
// with the field and the fix, nothing recorded.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApprovalSignatureError,
  askHuman,
  ConfigError,
  createRuntime,
  DecisionConflictError,
  InvalidAnswerError,
  type AgentSnapshot,
  type RequestHandle,
  withApprovalResponse,
} from 'countersign';
import { createScriptedModel, lastToolResults, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, thrown } from '../support/test-kit.js';

const answerSchema = z.object({
  region: z.enum(['eu-west-1', 'us-east-1']).meta({ title: 'Region' }),
  features: z
    .array(z.enum(['backups', 'replicas', 'metrics']))
    .max(2)
    .describe('Up to two'),
  nodes: z.number().int().min(1).max(9),
  public: z.boolean(),
  start: z.iso.date(),
  note: z.string().max(2000).optional(),
});
const good = { region: 'eu-west-1', features: ['backups'], nodes: 3, public: false, start: '2026-12-01' };

async function pendingOf<A>(handle: RequestHandle<A>) {
  const state = await handle.status();
  if (state.status !== 'pending' || state.request === undefined)
    throw new Error(`expected pending, got ${state.status}`);
  return state.request;
}

describe('runtime.requestInput', () => {
  it('asks with a form every surface can render, and hands back the typed answer', async () => {
    const runtime = createRuntime({});
    const handle = await runtime.requestInput({ question: 'Where should the cluster run?', answer: answerSchema });
    const request = await pendingOf(handle);
    expect(request.description).toBe('Where should the cluster run?');
    expect(request.question?.fields).toEqual([
      { name: 'region', title: 'Region', required: true, kind: 'choice', options: ['eu-west-1', 'us-east-1'] },
      {
        name: 'features',
        title: 'features',
        description: 'Up to two',
        required: true,
        kind: 'choices',
        options: ['backups', 'replicas', 'metrics'],
        maxItems: 2,
      },
      { name: 'nodes', title: 'nodes', required: true, kind: 'number', integer: true, minimum: 1, maximum: 9 },
      { name: 'public', title: 'public', required: true, kind: 'boolean' },
      { name: 'start', title: 'start', required: true, kind: 'date' },
      { name: 'note', title: 'note', required: false, kind: 'longText', maxLength: 2000 },
    ]);
    const waiting = handle.wait();
    await runtime.respond(handle.id, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'ana',
      answer: good,
    });
    const state = await waiting;
    expect(state).toMatchObject({ status: 'approved', by: 'ana', answer: good });
    if (state.status === 'approved') expect(state.answer?.nodes).toBe(3);
    expect((await runtime.get(handle.id)).status).toBe('completed');
  });

  it('refuses a bad answer naming each field, and records nothing', async () => {
    const runtime = createRuntime({});
    const handle = await runtime.requestInput({ question: 'Where?', answer: answerSchema });
    const { approvalId } = await pendingOf(handle);
    const bad = {
      region: 'mars',
      features: ['backups', 'replicas', 'metrics'],
      nodes: 2.5,
      public: 'yes',
      start: '01/12/2026',
      surprise: true,
    };
    const error = await runtime
      .respond(handle.id, { approvalId, approved: true, approvedBy: 'ana', answer: bad })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidAnswerError);
    expect((error as InvalidAnswerError).issues.map((issue) => issue.path).sort()).toEqual(
      ['features', 'nodes', 'public', 'region', 'start', 'surprise'].sort(),
    );
    await expect(
      runtime.respond(handle.id, { approvalId, approved: true, approvedBy: 'ana', answer: { region: 'eu-west-1' } }),
    ).rejects.toThrow(/features is required/);
    await expect(runtime.respond(handle.id, { approvalId, approved: true, approvedBy: 'ana' })).rejects.toThrow(
      /is a question; approve it with its answer/,
    );
    await expect(
      runtime.respond(handle.id, { approvalId, approved: true, approvedBy: 'ana', answer: good, args: {} }),
    ).rejects.toThrow(/not both/);
    await expect(
      runtime.respond(handle.id, { approvalId, approved: true, approvedBy: 'ana', answer: good, scope: 'session' }),
    ).rejects.toThrow(/this question only/);
    expect(await handle.status()).toMatchObject({ status: 'pending' });
  });

  it('takes a declined question as a denial, and an answer only on a question', async () => {
    const runtime = createRuntime({});
    const handle = await runtime.requestInput({ question: 'Where?', answer: answerSchema });
    const { approvalId } = await pendingOf(handle);
    await runtime.respond(handle.id, { approvalId, approved: false, approvedBy: 'ana', reason: 'not my call' });
    expect(await handle.status()).toMatchObject({ status: 'denied', reason: 'not my call' });

    const plain = await runtime.requestApproval({ tool: 'deploy', args: {} });
    const request = await pendingOf(plain);
    await expect(
      runtime.respond(plain.id, { approvalId: request.approvalId, approved: true, approvedBy: 'ana', answer: good }),
    ).rejects.toThrow(/asks no question/);
  });

  it('is answered by a person only: an allow rule does not answer it, a deny rule refuses it, a quorum is refused', async () => {
    const runtime = createRuntime({
      requests: {
        policy: {
          rules: [
            { tool: 'question', action: 'allow' },
            { tool: 'secret_*', action: 'deny' },
          ],
        },
      },
    });
    const allowed = await runtime.requestInput({ question: 'Where?', answer: answerSchema });
    expect(await allowed.status()).toMatchObject({ status: 'pending' });
    const denied = await runtime.requestInput({ question: 'Key?', tool: 'secret_key', answer: answerSchema });
    expect(await denied.status()).toMatchObject({ status: 'denied', source: 'rule' });
    const quorum = await runtime.requestInput({ question: 'Where?', answer: answerSchema, approvals: 2 });
    expect(await quorum.status()).toMatchObject({ status: 'denied', reason: expect.stringMatching(/one person/) });
  });

  it('treats a resent answer as the same decision and a different one as a conflict', async () => {
    const runtime = createRuntime({});
    const handle = await runtime.requestInput({ question: 'Where?', answer: answerSchema });
    const { approvalId } = await pendingOf(handle);
    const response = { approvalId, approved: true, approvedBy: 'ana', answer: good } as const;
    await runtime.respond(handle.id, response, { mode: 'record' });
    expect((await runtime.respond(handle.id, response, { mode: 'record' })).duplicate).toBe(true);
    await expect(
      runtime.respond(handle.id, { ...response, answer: { ...good, nodes: 4 } }, { mode: 'record' }),
    ).rejects.toBeInstanceOf(DecisionConflictError);
  });

  it('refuses a form no surface can render, naming the field', async () => {
    const runtime = createRuntime({});
    await expect(
      runtime.requestInput({ question: 'Q', answer: z.object({ nested: z.object({ a: z.string() }) }) }),
    ).rejects.toThrow(/answer\.nested is not a field/);
    const many = z.object(Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`f${index}`, z.string()])));
    await expect(runtime.requestInput({ question: 'Q', answer: many })).rejects.toThrow(/1 to 10 fields/);
    await expect(runtime.requestInput({ question: '', answer: answerSchema })).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('askHuman', () => {
  function opsAgent(decisionSecret?: string) {
    const ask = askHuman({ answer: z.object({ region: z.enum(['eu-west-1', 'us-east-1']) }) });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn(`creating in ${JSON.stringify(lastToolResults(messages)[0])}`)
        : toolCallTurn('ask_human', { question: 'Which region?' }),
    );
    return testAgent({ model, tools: [ask], ...(decisionSecret === undefined ? {} : { decisionSecret }) });
  }

  it("pauses the run on the model's question and gives the model the answer as the tool's result", async () => {
    const agent = opsAgent();
    const paused = await agent.execute({ input: 'make me a cluster' });
    const request = paused.pendingApprovals[0]!;
    expect(request).toMatchObject({ toolName: 'ask_human', description: 'Which region?' });
    expect(request.question?.fields[0]).toMatchObject({ name: 'region', kind: 'choice' });
    const answered = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'ana', answer: { region: 'us-east-1' } },
      { agent },
    );
    const done = await agent.execute(answered);
    expect(done.status).toBe('completed');
    expect(done.output).toBe('creating in {"region":"us-east-1"}');
  });

  it('refuses an answer to a form that was widened in storage (the form is signed)', async () => {
    const agent = opsAgent('ask-human-secret-0123456789');
    const paused = await agent.execute({ input: 'make me a cluster' });
    const request = paused.pendingApprovals[0]!;
    const field = request.question!.fields[0]!;
    const widened = {
      ...paused,
      pendingApprovals: [
        { ...request, question: { fields: [{ ...field, options: ['eu-west-1', 'us-east-1', 'attacker-region'] }] } },
      ],
    } as AgentSnapshot;
    const error = thrown(() =>
      withApprovalResponse(
        widened,
        {
          approvalId: request.approvalId,
          approved: true,
          approvedBy: 'ana',
          answer: { region: 'attacker-region' },
          signature: request.signature!,
        },
        { agent },
      ),
    );
    expect(error).toBeInstanceOf(ApprovalSignatureError);
  });
});

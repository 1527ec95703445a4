// Run: npx tsx examples/nested-agents.ts   (no key, no network: a scripted model and a memory store)
// An orchestrator hands a release to a `deployer` sub-agent (agentAsTool). The deployer's `deploy` call needs a
// person, so the whole run pauses: the request a person sees is that inner call, with the chain of delegations that
// led to it (`path`). One approval on the orchestrator's run reaches the deployer, the deploy runs once, and the
// deployer's answer is the delegate call's result.
import { z } from 'zod';
import { agentAsTool, createAgent, createMemoryStore, createRuntime, defineTool } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const deployed: string[] = [];

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service to production',
  input: z.object({ service: z.string(), version: z.string() }),
  needsApproval: true,
  approvalPrompt: ({ service, version }) => `Deploy ${service} ${version} to production?`,
  execute: ({ service, version }) => {
    deployed.push(`${service}@${version}`);
    return `deployed ${service} ${version}`;
  },
});

// Scripted models stand in for real providers: each answers from the conversation it is given.
const deployer = createAgent({
  name: 'deployer',
  model: createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn(`Release done: ${messages.at(-1)!.content}.`)
      : toolCallTurn('deploy', { service: 'billing', version: '2.4.1' }),
  ),
  tools: [deploy],
});

const lead = createAgent({
  name: 'lead',
  model: createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn(`The deployer reports: ${messages.at(-1)!.content}`)
      : toolCallTurn('deployer', { task: 'Ship billing 2.4.1 to production' }),
  ),
  tools: [agentAsTool(deployer, { description: 'Ships a release to production' })],
  // The orchestrator's secret signs every request in the chain, the deployer's included.
  decisionSecret: 'demo-decision-secret-change-me-0123456789',
});

const runtime = createRuntime({ agents: [lead], store: createMemoryStore() });

const paused = await runtime.start('lead', { input: 'Please release billing 2.4.1' });
const request = paused.pendingApprovals[0]!;
console.log(`status: ${paused.status}`);
console.log(`waiting for: ${request.toolName} ${JSON.stringify(request.args)} (${request.description})`);
const chain = [paused.agentName, ...(request.path ?? []).map((step) => step.agentName)].join(' › ');
const calls = (request.path ?? []).map((step) => `${step.toolName} ${step.toolCallId}`).join(' › ');
console.log(`asked by: ${chain} (via ${calls})`);

// The person decides the inner call; the decision is made on the orchestrator's run, its signature echoed.
const decided = await runtime.respond(paused.runId, {
  approvalId: request.approvalId,
  approved: true,
  approvedBy: 'alice',
  ...(request.signature === undefined ? {} : { signature: request.signature }),
});
console.log(`approved by alice: run is ${decided.status}`);
console.log(`answer: ${decided.snapshot.output}`);
console.log(`deployed: ${deployed.join(', ')}`);

// An agent for grant tests: every run asks for the calls its input names (JSON: [{ name, args }]), then says done,
// so one agent serves many runs of one session.
import { randomUUID } from 'node:crypto';
import {
  createAgent,
  withApprovalResponse,
  type AgentConfig,
  type AgentSnapshot,
  type ApprovalResponse,
  type Model,
} from 'countersign';
import { newExecutions, recordingTool, type Executions } from './policy-harness.js';

export const decisionSecret = 'test-decision-secret-0123456789';

/** A model that calls the tools the run's first user message lists (JSON), then answers "done". */
export function callingModel(): Model {
  return {
    async generate({ messages }) {
      if (messages.at(-1)?.role === 'tool') return { message: { role: 'assistant', content: 'done' } };
      const calls = JSON.parse(messages.find((message) => message.role === 'user')!.content) as {
        name: string;
        args: unknown;
      }[];
      return {
        message: {
          role: 'assistant',
          content: '',
          toolCalls: calls.map((call, index) => ({ id: `call_${randomUUID().slice(0, 8)}_${index}`, ...call })),
        },
      };
    },
  };
}

export function grantAgent(
  config: Partial<Omit<AgentConfig, 'model' | 'tools'>> & { toolNames?: readonly string[] } = {},
) {
  const executions: Executions = newExecutions();
  const { toolNames = ['deploy', 'read'], ...rest } = config;
  const agent = createAgent({
    name: `grants-${randomUUID().slice(0, 8)}`,
    model: callingModel(),
    tools: toolNames.map((name) => recordingTool(name, { needsApproval: true }, executions)),
    ...rest,
  });
  /** Starts a run calling `calls`. */
  const run = (calls: readonly { name: string; args: unknown }[], sessionId?: string) =>
    agent.execute({ input: JSON.stringify(calls), ...(sessionId === undefined ? {} : { sessionId }) });
  /** Decides the first pending request (echoing its signature) and resumes the run. */
  const decide = async (paused: AgentSnapshot, response: Omit<ApprovalResponse, 'approvalId'>, index = 0) => {
    const request = paused.pendingApprovals[index]!;
    const decided = withApprovalResponse(
      paused,
      {
        approvalId: request.approvalId,
        ...(request.signature === undefined ? {} : { signature: request.signature }),
        ...response,
      },
      { agent },
    );
    return agent.execute(decided);
  };
  return { agent, executions, run, decide };
}

import type { ModelRequest, ToolSpec } from '../../index.js';
import { toAnthropicConversation } from './anthropic-messages.js';

/** What every request of one model sends besides the conversation. */
export interface AnthropicRequestSettings {
  readonly model: string;
  readonly maxTokens: number;
  /** Extended thinking's budget, or undefined for none. */
  readonly thinkingBudget: number | undefined;
}

const toolToWire = (tool: ToolSpec) => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.parameters,
});

/** The JSON body for `POST /v1/messages`. */
export function anthropicRequestBody(
  settings: AnthropicRequestSettings,
  request: ModelRequest,
): Record<string, unknown> {
  const { system, messages } = toAnthropicConversation(request.messages);
  return {
    model: settings.model,
    max_tokens: settings.maxTokens,
    ...(system.length > 0 ? { system } : {}),
    messages,
    ...(request.tools.length > 0 ? { tools: request.tools.map(toolToWire) } : {}),
    ...(settings.thinkingBudget === undefined
      ? {}
      : { thinking: { type: 'enabled', budget_tokens: settings.thinkingBudget } }),
  };
}

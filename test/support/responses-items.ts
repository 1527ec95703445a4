// The output items both Responses API suites answer with, as OpenAI writes them (openai-node's ResponseReasoningItem,
// ResponseFunctionToolCall, ResponseOutputMessage).

export const reasoningItemOf = (summary: string) => ({
  id: 'rs_68c1f0a2b3c4d5e6',
  type: 'reasoning',
  summary: [
    { type: 'summary_text', text: summary },
    { type: 'summary_text', text: 'Delete them in parallel.' },
  ],
  encrypted_content: 'gAAAAABowPEq3Jz-7yN0k1E4_encrypted+reasoning/blob==',
});

export const callItem = (n: number, path: string) => ({
  id: `fc_68c1f0a2b3c4d5e${n}`,
  type: 'function_call',
  status: 'completed',
  arguments: JSON.stringify({ path }),
  call_id: `call_Ab${n}xYz`,
  name: 'delete_file',
});

export const messageItem = (text: string) => ({
  id: 'msg_68c1f0a2b3c4d5f0',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
});

// countersign/ui: approvals in chat UIs. The AI SDK's UI message stream (useChat) and AG-UI 1.0, each a
// Fetch-standard handler over the same runtime and decision path as every other surface.
export type { ChatApprovalCard, ChatDecision } from './approval-card.js';
export type { ChatAnswer } from './chat-answers.js';
export type { ChatHandlerOptions } from './chat-options.js';
export { chatSessionId } from './chat-session.js';
export { createUIChatHandler, type UIChatHandler, type UIChatTurn } from './create-ui-chat-handler.js';
export type { CountersignDataParts, CountersignUIChunk } from './ui-chunks.js';
export {
  assistantMessageId,
  toUIMessageStream,
  uiMessageStreamResponse,
  type UIMessageStreamOptions,
} from './ui-message-stream.js';
export type { ChatEventFeed } from './watch-run.js';
export { createAgUiHandler, type AgUiHandler } from './create-ag-ui-handler.js';

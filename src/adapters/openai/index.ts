export { ModelProviderError } from '../model-errors.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export type { OpenAIEndpointOptions } from './openai-endpoint.js';

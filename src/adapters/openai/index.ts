export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { ModelProviderError } from '../model-errors.js';

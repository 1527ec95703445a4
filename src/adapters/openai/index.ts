export { createOpenAIChatModel, ModelProviderError, type OpenAIChatModelOptions } from './openai-chat-model.js';

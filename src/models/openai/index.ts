export { ModelProviderError } from '../../errors.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model.js';
export { createOpenAIResponsesModel, type OpenAIResponsesModelOptions } from './openai-responses-model.js';

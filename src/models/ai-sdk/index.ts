export { createAiSdkModel, type AiSdkModelOptions } from './ai-sdk-model.js';
export { fromAiSdkTools } from './from-ai-sdk-tools.js';
export { ModelProviderError } from '../../errors.js';

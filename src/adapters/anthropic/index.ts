export { createAnthropicModel, type AnthropicModelOptions } from './anthropic-model.js';
export { ModelProviderError } from '../model-errors.js';

export { createAnthropicModel, type AnthropicModelOptions } from './anthropic-model.js';
export { ModelProviderError } from '../../errors.js';

export { createAnthropicModel, type AnthropicModelOptions } from './anthropic-model.js';
export { ModelProviderError } from '../../kit/model/model-errors.js';

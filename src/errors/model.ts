// Model providers.
import { CountersignError } from './base.js';

/**
 * The provider answered with an error, with something that is not a model
 * answer, or not at all. `message` says only the status (or the timeout, or
 * the network error's code); what the provider wrote (which can echo the API
 * key) is on `detail`, which is not enumerable, so a logger that serializes
 * the error's own fields leaves it out; read it on purpose.
 *
 * @example
 * try {
 *   await model.generate({ messages, tools: [] });
 * } catch (error) {
 *   if (error instanceof ModelProviderError) privateLog.warn(error.status, error.detail);
 * }
 */
export class ModelProviderError extends CountersignError {
  readonly status: number | undefined;
  /** The start of the provider's answer; may hold secrets it echoed. */
  declare readonly detail: string;

  constructor(message: string, status?: number, detail = '') {
    super('model_provider_error', message, { fault: 'environment' });
    this.status = status;
    Object.defineProperty(this, 'detail', { value: detail, enumerable: false });
  }
}

// The option every model adapter takes to turn its streaming off, for a gateway or proxy that cannot pass
// server-sent events: the loop streams whenever a model has `stream`, so a model without it answers in one piece.
import { z } from 'zod';
import type { Model } from '../../run/types.js';

/** Default true: the run streams (deltas go out as `model-delta` events); false for a gateway that cannot pass server-sent events. */
export const streamOptionShape = { stream: z.boolean().optional() };

/** `model` as it is, or without `stream` when the options say `stream: false`. */
export function streamingAsAsked(model: Required<Model>, stream: boolean | undefined): Model {
  return stream === false ? { modelId: model.modelId, generate: model.generate } : model;
}

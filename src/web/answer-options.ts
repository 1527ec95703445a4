// The options of everything that answers a request for a decision (the approval app, each channel's click route):
// how the run goes on after the decision is recorded, how long the answer waits for it, how big a body may be.
import { z } from 'zod';

/** For an `optionsObject({ ...answerOptionsShape, ... })`. */
export const answerOptionsShape = {
  resumeMode: z.enum(['inline', 'enqueue']).optional(),
  resumeTimeoutMs: z
    .number()
    .int('must be a whole number')
    .min(0)
    .max(15 * 60_000)
    .optional(),
  maxBodyBytes: z
    .number()
    .int('must be a whole number')
    .min(1024)
    .max(64 * 1024 * 1024)
    .optional(),
};

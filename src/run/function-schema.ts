import { z } from 'zod';

/** A zod schema for "a function", with the message a user reads when it is not one. */
export function functionSchema(message = 'must be a function') {
  return z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', message);
}

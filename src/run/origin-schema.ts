import { z } from 'zod';

/** `RunOrigin`: short printable strings, checked where a run starts and where a snapshot is read. */
export const originSchema = z.strictObject({
  channel: z
    .string()
    .regex(
      /^[a-z][a-z0-9_-]{0,31}$/,
      'must be a channel name like telegram or slack (lower case, up to 32 characters)',
    ),
  address: z.string().min(1).max(256),
  thread: z.string().min(1).max(256).optional(),
});

// The parts of a Bot API Update the webhook reads (unknown fields are kept and ignored): a button's
// callback_query, and a message that may answer a deny prompt.
import { z } from 'zod';

const idSchema = z.number().int().safe();

const messageSchema = z.looseObject({
  message_id: z.number().int(),
  chat: z.looseObject({ id: idSchema }),
  from: z.looseObject({ id: idSchema }).optional(),
  text: z.string().optional(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  reply_to_message: z.looseObject({ message_id: z.number().int() }).optional(),
});

const callbackQuerySchema = z.looseObject({
  id: z.string().min(1).max(256),
  from: z.looseObject({ id: idSchema }),
  data: z.string().max(256).optional(),
  message: messageSchema.optional(),
});

export const updateSchema = z.looseObject({
  update_id: z.number().int().nonnegative(),
  callback_query: callbackQuerySchema.optional(),
  message: messageSchema.optional(),
});

export type TelegramMessage = z.output<typeof messageSchema>;
export type CallbackQuery = z.output<typeof callbackQuerySchema>;

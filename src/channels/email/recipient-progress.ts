// One mail per recipient, and a retry must not mail again those who already got it: who was sent what is
// remembered per piece of work (a card, a follow-up) until it is done or fails for good. A card whose tries ran
// out stays remembered, so the kit's later retry of the same event mails only those still missing.

/** Pieces of work remembered at most; the oldest is forgotten first. */
const REMEMBERED = 1000;

export interface RecipientProgress {
  /** Runs `send` for each recipient not yet done for `key`, in order; rethrows the first failure. */
  each(
    key: string,
    recipients: readonly string[],
    send: (recipient: string) => Promise<void>,
    retryable: (error: unknown) => boolean,
  ): Promise<void>;
}

export function createRecipientProgress(): RecipientProgress {
  const done = new Map<string, Set<string>>();
  return {
    async each(key, recipients, send, retryable) {
      const sent = done.get(key) ?? new Set<string>();
      done.delete(key);
      done.set(key, sent);
      if (done.size > REMEMBERED) done.delete(done.keys().next().value!);
      try {
        for (const recipient of recipients) {
          if (sent.has(recipient)) continue;
          await send(recipient);
          sent.add(recipient);
        }
        done.delete(key);
      } catch (error) {
        if (!retryable(error)) done.delete(key);
        throw error;
      }
    },
  };
}

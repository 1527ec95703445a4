// `countersign review`: pending approvals one card at a time, decided with single keys on a terminal.
import type { Approvals } from '../approvals.js';
import { inert } from '../format.js';
import { type ReviewIo, type ReviewOptions, ReviewSession } from './review-session.js';
/**
 * Walks the pending approvals (soonest expiry first) as cards: y approve once, s approve for the run, n deny with a
 * reason, d dismiss (close it without a decision, as `countersign dismiss` does; not on a quorum request), e edit the
 * arguments in `$EDITOR` (checked against the tool's schema by the runtime), v view the full
 * arguments, j skip, q quit; a question's card takes a (answer it field by field, each asked again until it fits) or n
 * (decline). After each decision it says what happened and where the tool runs. With `json` it
 * prints the cards as JSON Lines and exits: scripts decide with `approve` and `deny`.
 */
export async function runReview(approvals: Approvals, io: ReviewIo, options: ReviewOptions): Promise<number> {
  const page = await approvals.pending({
    limit: 500,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  const total = page.items.length;
  if (options.json) {
    for (const [index, item] of page.items.entries())
      io.stdout.write(`${inert(JSON.stringify({ position: index + 1, total, ...item }))}\n`);
    return 0;
  }
  const session = new ReviewSession(approvals, io, options);
  let decided = 0;
  try {
    if (total === 0) session.say('no pending approvals');
    for (const [index, item] of page.items.entries()) {
      const answer = await session.review(item, { index: index + 1, total });
      if (answer === 'decided') decided++;
      if (answer === 'quit') break;
    }
  } finally {
    session.close();
  }
  session.say(`\n${decided} decided`);
  return 0;
}

// What the model and the person at Claude Code read of each outcome of a request.
import type { RequestOutcome } from 'countersign';
import { describe, expect, it } from 'vitest';
import { approvalWords, refusalWords, waitingWords } from '../../../src/claude-code/outcome-words.js';

const outcome = (fields: Partial<RequestOutcome>): RequestOutcome => ({
  status: 'denied',
  id: 'req_1',
  approved: false,
  at: 0,
  ...fields,
});

describe('the words of an outcome', () => {
  it('say who or what approved a call', () => {
    expect(approvalWords(outcome({ status: 'approved', source: 'human', by: 'alice' }))).toBe(
      'Approved by alice in countersign',
    );
    expect(approvalWords(outcome({ status: 'approved', source: 'rule', ruleId: 'reads' }))).toBe(
      'Allowed by countersign rule reads',
    );
    expect(approvalWords(outcome({ status: 'approved', source: 'grant', by: 'alice' }))).toBe(
      "Allowed by alice's earlier approval in countersign",
    );
  });

  it('say who refused a call, and why, and that the model must not retry it', () => {
    const notAgain = 'Do not retry it or work around it; continue without it, or tell the user what you could not do.';
    expect(refusalWords(outcome({ source: 'human', by: 'bob', reason: 'frozen' }))).toBe(
      `bob denied this call in countersign: frozen. ${notAgain}`,
    );
    expect(refusalWords(outcome({ source: 'rule', ruleId: 'no-rm' }))).toBe(
      `The countersign policy refused this call (rule no-rm). ${notAgain}`,
    );
    expect(refusalWords(outcome({ status: 'expired', source: 'expiry' }))).toBe(
      `Nobody approved this call before its countersign request expired. ${notAgain}`,
    );
    expect(refusalWords(outcome({ status: 'dismissed', source: 'dismissed', by: 'carol' }))).toBe(
      `carol closed the countersign request without approving this call. ${notAgain}`,
    );
    expect(refusalWords(outcome({ status: 'cancelled', reason: 'task stopped' }))).toBe(
      `The countersign request for this call was cancelled: task stopped. ${notAgain}`,
    );
    // A failed request's reason is the error its call ended with, read out of the tool result.
    expect(refusalWords(outcome({ status: 'failed', reason: '{"status":"error","error":"store down"}' }))).toBe(
      `countersign could not ask about this call: store down. ${notAgain}`,
    );
  });

  it('tell the model a person was asked, and to make the same call again later', () => {
    expect(waitingWords('req_9')).toMatch(
      /^This call waits for a person to approve it in countersign \(request req_9\); it did not run\. /,
    );
    expect(waitingWords('req_9')).toMatch(/same call again, with exactly the same input, later/);
  });
});

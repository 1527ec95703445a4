// What Claude (the model) and the person at Claude Code read of a request's outcome: who decided and why, a refusal
// phrased so the model does not retry or work around it, and a wait phrased so it tries the same call again later.
import type { RequestOutcome } from '../index.js';

const DO_NOT_RETRY = 'Do not retry it or work around it; continue without it, or tell the user what you could not do.';

const because = (reason: string | undefined) => (reason === undefined || reason === '' ? '' : `: ${reason}`);

/** The text of a failed request's reason: the error of a tool result (`{ "status": "error", "error": … }`), else as it is. */
function errorText(reason: string | undefined): string | undefined {
  try {
    const parsed = JSON.parse(reason ?? '') as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : reason;
  } catch {
    return reason;
  }
}

/** Why an approved call may run: who or what approved it. */
export function approvalWords(outcome: RequestOutcome): string {
  switch (outcome.source) {
    case 'rule':
      return `Allowed by countersign rule ${outcome.ruleId ?? '(unnamed)'}${because(outcome.reason)}`;
    case 'grant':
    case 'memory':
      return `Allowed by ${outcome.by ?? 'a person'}'s earlier approval in countersign${because(outcome.reason)}`;
    default:
      return `Approved by ${outcome.by ?? 'a person'} in countersign${because(outcome.reason)}`;
  }
}

/** Why a call that was not approved did not run, for the model: who refused it and why, and not to retry it. */
export function refusalWords(outcome: RequestOutcome): string {
  switch (outcome.status) {
    case 'expired':
      return `Nobody approved this call before its countersign request expired. ${DO_NOT_RETRY}`;
    case 'dismissed':
      return `${outcome.by ?? 'The reviewer'} closed the countersign request without approving this call${because(outcome.reason)}. ${DO_NOT_RETRY}`;
    case 'cancelled':
      return `The countersign request for this call was cancelled${because(outcome.reason)}. ${DO_NOT_RETRY}`;
    case 'failed':
      return `countersign could not ask about this call${because(errorText(outcome.reason))}. ${DO_NOT_RETRY}`;
    default:
      if (outcome.source === 'rule' || outcome.source === 'default' || outcome.source === 'tool')
        return `The countersign policy refused this call${outcome.ruleId ? ` (rule ${outcome.ruleId})` : ''}${because(outcome.reason)}. ${DO_NOT_RETRY}`;
      return `${outcome.by ?? 'A person reviewing it'} denied this call in countersign${because(outcome.reason)}. ${DO_NOT_RETRY}`;
  }
}

/** For the model, while a person has not decided: the call waits for them, and the same call later gets the decision. */
export function waitingWords(requestId: string): string {
  return (
    `This call waits for a person to approve it in countersign (request ${requestId}); it did not run. ` +
    'Do not work around it. Make the same call again, with exactly the same input, later (after other work, or when the user says it was decided) to get the decision.'
  );
}

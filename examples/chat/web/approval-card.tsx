// countersign's approval card inline in the chat: the arguments as the person sees them, warnings, the expiry
// counting down, and Approve / Approve for this session / Deny with a reason.
import { useEffect, useState } from 'react';
import type { ChatApprovalCard } from 'countersign/ui';

export interface Answer {
  readonly approved: boolean;
  readonly reason?: string;
  readonly scope?: 'session' | 'run';
}

/** Seconds left until `expiresAt`, ticking once a second. */
function useSecondsLeft(expiresAt: number | undefined): number | undefined {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (expiresAt === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [expiresAt]);
  return expiresAt === undefined ? undefined : Math.max(0, Math.round((expiresAt - now) / 1000));
}

/**
 * What a person began on a card (a denial, the reason typed so far), by approval id: when the stream redraws the
 * message and the card is mounted again, the half-written denial is still there.
 */
const drafts = new Map<string, { readonly denying: boolean; readonly reason: string }>();

export function ApprovalCard({ card, onAnswer }: { card: ChatApprovalCard; onAnswer: (answer: Answer) => void }) {
  const draft = drafts.get(card.approvalId) ?? { denying: false, reason: '' };
  const [reason, keepReason] = useState(draft.reason);
  const [denying, keepDenying] = useState(draft.denying);
  const setReason = (value: string) => {
    drafts.set(card.approvalId, { denying, reason: value });
    keepReason(value);
  };
  const setDenying = (value: boolean) => {
    drafts.set(card.approvalId, { denying: value, reason });
    keepDenying(value);
  };
  const left = useSecondsLeft(card.expiresAt);
  return (
    <section className="card" aria-label={`Approval: ${card.description}`} data-approval={card.approvalId}>
      <h3>{card.description}</h3>
      {card.reason === undefined ? null : <p>{card.reason}</p>}
      <pre className="args">{JSON.stringify(card.args, null, 2)}</pre>
      {card.warnings.map((warning) => (
        <p key={`${warning.code}:${warning.path}`} className="warning" role="note">
          ⚠ {warning.message}
        </p>
      ))}
      {left === undefined ? null : <p className="expiry">Expires in {left} s</p>}
      {denying ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            onAnswer({ approved: false, ...(reason.trim() === '' ? {} : { reason: reason.trim() }) });
          }}
        >
          <label>
            Reason <input value={reason} onChange={(event) => setReason(event.target.value)} name="reason" />
          </label>
          <button type="submit">Send denial</button>
        </form>
      ) : (
        <div className="buttons">
          {card.offered.approve ? (
            <button type="button" onClick={() => onAnswer({ approved: true })}>
              Approve
            </button>
          ) : null}
          {card.offered.wider === undefined ? null : (
            <button type="button" onClick={() => onAnswer({ approved: true, scope: card.offered.wider!.scope })}>
              {card.offered.wider.label}
            </button>
          )}
          {card.offered.deny ? (
            <button type="button" onClick={() => setDenying(true)}>
              Deny
            </button>
          ) : null}
        </div>
      )}
    </section>
  );
}

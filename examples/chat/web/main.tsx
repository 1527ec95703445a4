// The example chat: the AI SDK's own useChat against countersign/ui's endpoint. Cards render inline; an answer goes
// back in the next request (addToolApprovalResponse, then the automatic send); while a card waits, the page keeps
// a reconnect open (resumeStream) so a decision made in the console or anywhere else shows up here.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { ChatApprovalCard, ChatDecision, CountersignDataParts } from 'countersign/ui';
import { type Answer, ApprovalCard } from './approval-card.js';

type ChatMessage = UIMessage<unknown, CountersignDataParts>;
type Part = ChatMessage['parts'][number];

const chatId = new URLSearchParams(location.search).get('chat') ?? 'demo';

const isTool = (part: Part): part is Extract<Part, { toolCallId: string }> => part.type.startsWith('tool-');

function Chat() {
  const { messages, sendMessage, addToolApprovalResponse, resumeStream, stop, status, error } = useChat<ChatMessage>({
    id: chatId,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const waiting = messages.at(-1)?.parts.some((part) => isTool(part) && part.state === 'approval-requested') ?? false;

  // A card waits and nothing is streaming: follow the run, so a decision made elsewhere arrives.
  useEffect(() => {
    if (waiting && status === 'ready') void resumeStream();
  }, [waiting, status, resumeStream]);

  const answer = async (card: ChatApprovalCard, { approved, reason, scope }: Answer) => {
    await stop(); // the reconnect that follows the run
    await addToolApprovalResponse({
      id: card.approvalId,
      approved,
      ...(reason === undefined ? {} : { reason }),
      ...(scope === undefined ? {} : { options: { body: { countersign: { scopes: { [card.approvalId]: scope } } } } }),
    });
  };

  return (
    <>
      <h1>countersign chat</h1>
      <ol className="messages">
        {messages.map((message) => {
          const cards = new Map<string, ChatApprovalCard>();
          const decisions = new Map<string, ChatDecision>();
          for (const part of message.parts) {
            if (part.type === 'data-countersign-approval') cards.set(part.data.approvalId, part.data);
            if (part.type === 'data-countersign-decision') decisions.set(part.data.toolCallId, part.data);
          }
          return (
            <li key={message.id} className={message.role}>
              {message.parts.map((part, index) => {
                const key = `${message.id}:${index}`;
                if (part.type === 'text') return <p key={key}>{part.text}</p>;
                if (!isTool(part)) return null;
                const decision = decisions.get(part.toolCallId);
                const card = part.state === 'approval-requested' ? cards.get(part.approval.id) : undefined;
                return (
                  <div key={key} className="tool" data-tool-state={part.state}>
                    <code>
                      {part.type.slice(5)} {JSON.stringify(part.input)}
                    </code>
                    {card === undefined ? null : (
                      <ApprovalCard card={card} onAnswer={(choice) => void answer(card, choice)} />
                    )}
                    {part.state === 'approval-responded' ? <p>Answered; waiting…</p> : null}
                    {decision === undefined ? null : (
                      <p className="decision">
                        {decision.outcome} by {decision.by ?? 'policy'}
                        {decision.reason === undefined ? '' : `: ${decision.reason}`}
                      </p>
                    )}
                    {part.state === 'output-available' ? <p className="output">{String(part.output)}</p> : null}
                    {part.state === 'output-denied' ? <p className="output">Not run.</p> : null}
                  </div>
                );
              })}
            </li>
          );
        })}
      </ol>
      {error === undefined ? null : <p role="alert">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim() === '') return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit" disabled={waiting}>
          Send
        </button>
      </form>
    </>
  );
}

createRoot(document.getElementById('root')!).render(<Chat />);

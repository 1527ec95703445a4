// A runtime asked a question with a typed answer (runtime.requestInput), with one-click links, for the surfaces'
// tests: the whole form (every kind of field) or one field, the pending request, and the request's state.
import { z } from 'zod';
import { createMemoryStore, createRuntime, type LinkedRuntime, type RunEvent } from 'countersign';

export const QUESTION_LINK_SECRET = 'question-link-secret-0123456789abcdef';

/** Every kind of field a person can be asked for. */
export const WHOLE_FORM = z.object({
  region: z.enum(['eu-west-1', 'us-east-1', 'ap-south-1']).meta({ title: 'Region', description: 'Where it runs' }),
  zones: z.array(z.enum(['a', 'b', 'c'])).min(1),
  name: z.string().max(40).meta({ title: 'Cluster name' }),
  note: z.string().max(2000).optional(),
  nodes: z.number().int().min(1).max(9),
  public: z.boolean(),
  launch: z.iso.date(),
});

/** One choice: what every chat surface asks in place. */
export const ONE_CHOICE = z.object({ region: z.enum(['eu-west-1', 'us-east-1']).meta({ title: 'Region' }) });

/** One line of text of at most 40 characters. */
export const ONE_TEXT = z.object({ name: z.string().max(40).meta({ title: 'Cluster name' }) });

export interface QuestionWorld {
  readonly runtime: LinkedRuntime;
  readonly events: RunEvent[];
  /** Asks `answer` as the question "Which region should the cluster run in?"; resolves with the request's id and approval. */
  ask(answer: z.ZodObject): Promise<{ readonly runId: string; readonly approvalId: string }>;
  /** Where the request of `runId` stands (`handle.status()`). */
  state(runId: string): ReturnType<ReturnType<LinkedRuntime['approvalRequest']>['status']>;
}

export function questionWorld(runtime?: LinkedRuntime): QuestionWorld {
  const linked = runtime ?? createRuntime({ store: createMemoryStore(), links: { secret: QUESTION_LINK_SECRET } });
  const events: RunEvent[] = [];
  linked.subscribe((event) => void events.push(event));
  return {
    runtime: linked,
    events,
    async ask(answer) {
      const handle = await linked.requestInput({ question: 'Which region should the cluster run in?', answer });
      const state = await handle.status();
      if (state.status !== 'pending' || state.request === undefined) throw new Error(`not pending: ${state.status}`);
      return { runId: handle.id, approvalId: state.request.approvalId };
    },
    state: (runId) => linked.approvalRequest(runId).status(),
  };
}

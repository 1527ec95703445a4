// A tool the model calls to ask a person a question with a typed answer: the run pauses like an approval, and the
// person's answer is the tool's result (LangGraph's interrupt, MCP's form elicitation).
import { z } from 'zod';
import { optionsObject, parseOptions } from '../options.js';
import { questionOfSchema } from '../run/question-of-schema.js';
import { defineTool, type Tool } from './define-tool.js';

/**
 * Options of `askHuman`.
 *
 * @example
 * const options: AskHumanOptions<z.ZodObject<{ approve: z.ZodBoolean }>> = { answer: z.object({ approve: z.boolean() }) };
 */
export interface AskHumanOptions<A extends z.ZodObject> {
  /** The form of the answer (see `InputAsk.answer` for the fields a person can be asked for). */
  readonly answer: A;
  /** Default `ask_human`. */
  readonly name?: string;
  /** What the model reads about when to call it. */
  readonly description?: string;
  /** Who may answer; anyone when left out. */
  readonly approvers?: readonly string[];
  /** How long a person has to answer; the agent's `approvalTtlMs` when left out. */
  readonly approvalTtlMs?: number;
}

const optionsSchema = optionsObject({
  answer: z.custom<z.ZodObject>((value) => value instanceof z.ZodObject, 'must be a zod object'),
  name: z.string().optional(),
  description: z.string().min(1).optional(),
  approvers: z.array(z.string().min(1)).min(1).optional(),
  approvalTtlMs: z.number().int().positive().optional(),
});

/**
 * A tool that asks a person a question: the model calls it with `{ question }`, the run waits for the answer like
 * for an approval (on every surface: a form in the console, a modal in Slack, a link page), and the tool's result
 * is the answer, checked against `answer`. Declining (a denial) tells the model the person did not answer.
 *
 * @example
 * const ask = askHuman({ answer: z.object({ region: z.enum(['eu-west-1', 'us-east-1']) }) });
 * const agent = createAgent({ name: 'ops', model, tools: [ask, createCluster] });
 */
export function askHuman<A extends z.ZodObject>(
  options: AskHumanOptions<A>,
): Tool<{ question: string; answer?: z.output<A> | undefined }> {
  parseOptions(optionsSchema, options, 'askHuman');
  const question = questionOfSchema(options.answer, 'askHuman');
  return defineTool({
    name: options.name ?? 'ask_human',
    description:
      options.description ??
      'Ask the user a question and wait for their answer. Use it when you need a decision or a detail only they can give.',
    input: z.object({
      question: z.string().min(1).max(4000).describe('The question, as the person will read it.'),
      answer: options.answer.optional().describe('Leave this out: the person fills it in.'),
    }),
    approvalPrompt: (input) => input.question,
    question,
    ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    execute: (input) => input.answer ?? null,
  });
}

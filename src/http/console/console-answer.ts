import { InvalidAnswerError, type Answer, type Runtime } from '../../index.js';
import { formAnswerEntries, HttpProblem, problem, readAnswer } from '../../kit/index.js';

/**
 * The answer a console's Answer carries for the question of `approvalId`, read from the form's `answer.<field>` pairs
 * and checked where it arrives: a refused one throws `InvalidAnswerError` (422, each field's problem, nothing
 * recorded), and Answer on a pending request that asks nothing is refused, never taken as an approval. Undefined
 * once the request is no longer pending: deciding then says why.
 *
 * @example
 * const answer = await consoleAnswer(runtime, { runId, approvalId, answerFields: [['answer.region', 'eu']] });
 */
export async function consoleAnswer(
  runtime: Runtime,
  fields: {
    readonly runId: string;
    readonly approvalId: string;
    readonly answerFields?: [string, string][] | undefined;
  },
): Promise<Answer | undefined> {
  const run = await runtime.get(fields.runId);
  const request = run.pendingApprovals.find((item) => item.approvalId === fields.approvalId);
  if (request === undefined) return undefined;
  if (request.question === undefined)
    throw new HttpProblem(
      problem(400, 'invalid_body', `Approval ${fields.approvalId} asks no question; approve or deny it instead.`),
    );
  const { answer, issues } = readAnswer(request.question, formAnswerEntries(fields.answerFields ?? []));
  if (issues.length > 0) throw new InvalidAnswerError(fields.approvalId, issues);
  return answer;
}

import { evaluateCalls } from '../evaluate-calls.js';
import type { CallEvaluation } from '../../machine/agent-machine.js';
import type { EffectOutcome, Run } from './run.js';
import { GrantSignatureError, type RuleSignatureError } from '../../errors.js';

/** A forged grant or stored rule was ignored: said to `onError`, or, with none, to the console, never in silence. */
function reportRefused(run: Run, error: GrantSignatureError | RuleSignatureError): void {
  const { onError } = run.options;
  if (onError)
    onError(error, { operation: error instanceof GrantSignatureError ? 'grant' : 'rule', runId: run.snapshot.runId });
  else console.warn(`countersign: ${error.message}`);
}

/** `evaluatingTools`: runs the policy over the calls the model asked for: each runs, waits for a person, or is settled. */
export async function evaluateTools(run: Run): Promise<EffectOutcome> {
  const evaluations = await evaluateCalls(run.agent, run.snapshot, (error) => reportRefused(run, error));
  const traceparent = run.telemetry?.traceparent;
  run.advance({
    type: 'TOOLS_EVALUATED',
    at: run.settings.clock(),
    evaluations: traceparent === undefined ? evaluations : evaluations.map((item) => traced(item, traceparent)),
  });
  return 'next';
}

/** A request and its call stamped with the trace they were asked in (unsigned: it says where to report, never what may run). */
function traced(evaluation: CallEvaluation, traceparent: string): CallEvaluation {
  if (evaluation.kind !== 'ask') return evaluation;
  return {
    ...evaluation,
    record: { ...evaluation.record, traceparent },
    request: { ...evaluation.request, traceparent },
  };
}

import { evaluateCalls } from '../evaluate-calls.js';
import type { EffectOutcome, Run } from './run.js';
import type { GrantSignatureError } from '../../errors.js';

/** A forged grant was ignored: said to `onError`, or, with none, to the console, never in silence. */
function reportRefusedGrant(run: Run, error: GrantSignatureError): void {
  const { onError } = run.options;
  if (onError) onError(error, { operation: 'grant', runId: run.snapshot.runId });
  else console.warn(`countersign: ${error.message}`);
}

/** `evaluatingTools`: runs the policy over the calls the model asked for: each runs, waits for a person, or is settled. */
export async function evaluateTools(run: Run): Promise<EffectOutcome> {
  run.advance({ type: 'TOOLS_EVALUATED', at: run.settings.clock(), evaluations: await evaluateCalls(run.agent, run.snapshot, (error) => reportRefusedGrant(run, error)) });
  return 'next';
}

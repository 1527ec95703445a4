import { evaluateCalls } from '../evaluate-calls.js';
import type { EffectOutcome, Run } from './run.js';

/** `evaluatingTools`: runs the policy over the calls the model asked for: each runs, waits for a person, or is settled. */
export async function evaluateTools(run: Run): Promise<EffectOutcome> {
  run.advance({ type: 'TOOLS_EVALUATED', at: run.settings.clock(), evaluations: await evaluateCalls(run.agent, run.snapshot) });
  return 'next';
}

import type { AgentEvent } from '../../machine/agent-machine.js';
import { answerEvent, callModel as askModel } from '../model-call.js';
import { modelFailureText } from '../../presentation/public-text.js';
import { printModelError } from './print-model-error.js';
import type { EffectOutcome, Run } from './run.js';

/**
 * `callingModel`: checkpoints, asks the model for the next turn and records its answer, or fails the run with a
 * public text of the error (the full error goes to `onError`, or with none to console.error, redacted). A call cut off by a cancel records nothing: the loop
 * cancels the run next.
 */
export async function callModel(run: Run): Promise<EffectOutcome> {
  const settings = run.settings;
  await run.save();
  let answered: AgentEvent;
  try {
    const request = {
      messages: run.snapshot.messages,
      tools: settings.specs,
      get signal() {
        return run.signal;
      },
    };
    const ask = () => askModel(settings.model, request, run.snapshot, run.announceDelta);
    const { telemetry } = run;
    const response = await (telemetry ? telemetry.chat({ model: settings.model.modelId }, ask) : ask());
    answered = answerEvent(response, settings.clock());
  } catch (error) {
    if (run.aborted) return 'next';
    const { onError } = run.options;
    if (onError) {
      try {
        onError(error, { operation: 'model', runId: run.snapshot.runId });
      } catch {
        // The reporter's own failure has nowhere left to go.
      }
    } else printModelError(error, run.snapshot.runId);
    answered = {
      type: 'FAIL',
      at: settings.clock(),
      error: { code: 'model_error', message: modelFailureText(error, onError ? 'onError' : 'console') },
    };
  }
  run.advance(answered);
  return 'next';
}

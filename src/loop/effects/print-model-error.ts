// Where a failed model call's full error goes when nobody asked for it (no onError): the developer's console, once,
// without its secrets, so a run that failed in a first try says why instead of pointing at a reporter that is not there.
import { inspect } from 'node:util';
import { redactSecrets } from '../../presentation/redact-secrets.js';

/** The most printed of one error: a provider's error can quote a whole request. */
const MAX_PRINTED = 20_000;

/** The error as Node shows it (stack, fields, cause), with `detail` too: a `ModelProviderError` keeps the provider's words there, hidden from loggers. */
function fullText(error: unknown): string {
  const shown = inspect(error, { depth: 4, breakLength: 120 });
  const detail =
    typeof error === 'object' && error !== null && !Object.keys(error).includes('detail')
      ? (error as { detail?: unknown }).detail
      : undefined;
  const text = typeof detail === 'string' && detail !== '' ? `${shown}\ndetail: ${detail}` : shown;
  return text.length > MAX_PRINTED
    ? `${text.slice(0, MAX_PRINTED)}… (${text.length - MAX_PRINTED} more characters)`
    : text;
}

/** Prints `error` of run `runId`'s model call with console.error, secrets redacted, saying how to receive it instead. */
export function printModelError(error: unknown, runId: string): void {
  console.error(
    `countersign: the model call of run ${runId} failed (pass onError to agent.execute or createRuntime to receive such errors instead of this print):\n${redactSecrets(fullText(error))}`,
  );
}

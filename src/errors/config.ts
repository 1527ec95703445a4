// Configuration: what the caller set up is wrong or incomplete; fixed by changing code or settings, never by retrying.
import { CountersignError } from './base.js';
import type { ConfigErrorCode } from './codes.js';

/**
 * A configuration or argument given to countersign is invalid; `code` says
 * which kind of problem (`ConfigErrorCode`), the message names the option and the fix.
 *
 * @example
 * throw new ConfigError('createSlackNotifier: token needs a channel to post to, e.g. channel: "C0123456789".', 'missing_option');
 */
export class ConfigError extends CountersignError {
  declare readonly code: ConfigErrorCode;

  constructor(message: string, code: ConfigErrorCode = 'invalid_config') {
    super(code, message);
  }
}

/** A runtime has no agent of this name among its `agents`. */
export class AgentNotFoundError extends CountersignError {
  readonly agentName: string;

  constructor(agentName: string, known: readonly string[]) {
    super(
      'agent_not_found',
      `No agent named ${agentName} is given to this runtime` +
        (known.length > 0 ? ` (known: ${known.join(', ')})` : '') +
        '. Pass it in createRuntime({ agents }) to resume its runs.',
    );
    this.agentName = agentName;
  }
}

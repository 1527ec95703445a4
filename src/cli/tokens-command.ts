// `countersign tokens issue|list|revoke`: the personal API tokens of the runtime module (createRuntime({ personTokens })).
// The token is printed once, at issue; only its hash is kept.
import { ConfigError, UsageError } from '../errors.js';
import type { PersonToken } from '../ports/person-token-store.js';
import type { PersonTokens } from '../runtime/person-tokens/person-tokens.js';
import type { Runtime } from '../runtime/runtime.js';
import type { CliFlags } from './cli-flags.js';

export const TOKENS_USAGE = `  tokens issue PERSON [--label TEXT] [--expires-in MS]
                                              a personal API token for PERSON, printed once: the approval
                                              app records whatever it decides as PERSON
  tokens list                                 every personal token (never the secret): id, person, state
  tokens revoke TOKEN_ID                      revoke a personal token at once`;

function tokensOf(runtime: Runtime): PersonTokens {
  if (runtime.personTokens === undefined)
    throw new ConfigError(
      'countersign tokens: the runtime has no personal tokens; make it with createRuntime({ personTokens: createRedisPersonTokenStore({ redis }) }).',
      'missing_option',
    );
  return runtime.personTokens;
}

function stateOf(token: PersonToken, now: number): string {
  if (token.revokedAt !== undefined) return `revoked ${new Date(token.revokedAt).toISOString()}`;
  if (token.expiresAt !== undefined && token.expiresAt <= now)
    return `expired ${new Date(token.expiresAt).toISOString()}`;
  return token.expiresAt === undefined ? 'live' : `live until ${new Date(token.expiresAt).toISOString()}`;
}

const line = (token: PersonToken, now: number) =>
  `${token.id}  ${token.person}${token.label === undefined ? '' : ` (${token.label})`}  ${stateOf(token, now)}`;

/** Runs a `tokens` subcommand; prints through `output` (text, or the data with --json). */
export async function runTokens(
  runtime: Runtime,
  rest: readonly string[],
  flags: CliFlags,
  output: (human: string, data: unknown) => void,
  now: number,
): Promise<number> {
  const [action, argument, ...extra] = rest;
  const tokens = tokensOf(runtime);
  if (action === 'issue' && argument !== undefined && extra.length === 0) {
    const issued = await tokens.issue({
      person: argument,
      ...(flags.raw.label === undefined ? {} : { label: flags.raw.label }),
      ...(flags.expiresIn === undefined ? {} : { expiresInMs: flags.expiresIn }),
    });
    output(
      `${issued.token}\n(personal token ${issued.record.id} for ${issued.record.person}; shown once, only its hash is kept)`,
      issued,
    );
    return 0;
  }
  if (action === 'list' && argument === undefined) {
    const list = await tokens.list();
    output(list.length === 0 ? 'no personal tokens' : list.map((token) => line(token, now)).join('\n'), list);
    return 0;
  }
  if (action === 'revoke' && argument !== undefined && extra.length === 0) {
    const revoked = await tokens.revoke(argument);
    if (revoked === undefined) {
      output(`no personal token ${argument}`, { revoked: false });
      return 1;
    }
    output(`revoked ${line(revoked, now)}`, { revoked: true, token: revoked });
    return 0;
  }
  throw new UsageError('tokens takes issue PERSON, list, or revoke TOKEN_ID');
}

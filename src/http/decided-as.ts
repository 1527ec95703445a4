// Who a write sent to the API is recorded as: with a personal token, its person (a body naming anyone else is
// refused); with the shared bearer token, the name the caller gives, except that with personal tokens on the shared
// token is kept for service-to-service calls and decides nothing on a person's behalf.
import type { Context } from 'hono';
import { HttpProblem, problem, samePerson } from '../kit/index.js';
import type { AppEnv } from './app-env.js';

/** How the app treats the names in decisions: whether personal tokens exist, and whether the shared token may still decide. */
export interface DecisionIdentity {
  readonly personTokens: boolean;
  readonly sharedTokenDecides: boolean;
}

/** The token's person; a body naming someone else (compared as people are) is a 403 `approver_mismatch`. */
function personOf(person: string, named: string | undefined, field: 'approvedBy' | 'requestedBy'): string {
  if (named !== undefined && !samePerson(named, person))
    throw new HttpProblem(
      problem(
        403,
        'approver_mismatch',
        `This personal token is ${person}'s: it acts only as ${person}, not as ${named}. Leave ${field} out; the token names who it is.`,
        { person, [field]: named },
      ),
    );
  return person;
}

/**
 * The `approvedBy` to record for a decision whose body named `named`: a personal token's person always. With
 * personal tokens on, the shared bearer token does not decide (403 `person_token_required`) unless the app was told
 * `sharedTokenDecides: true`.
 */
export function decidedAs(
  c: Context<AppEnv>,
  named: string | undefined,
  identity: DecisionIdentity,
): string | undefined {
  const caller = c.var.caller;
  if (caller.kind === 'person') return personOf(caller.person, named, 'approvedBy');
  if (caller.kind === 'bearer' && identity.personTokens && !identity.sharedTokenDecides)
    throw new HttpProblem(
      problem(
        403,
        'person_token_required',
        "The shared bearer token does not decide on a person's behalf here: decide with your personal token (runtime.personTokens.issue, or countersign tokens issue), or sign in to the console.",
      ),
    );
  return named;
}

/**
 * The `requestedBy` to record for a run started with a body that named `named`: a personal token's person, so
 * nobody starts a run in a colleague's name and then approves it as someone other than its requester; any other
 * caller's as given.
 */
export function requestedAs(c: Context<AppEnv>, named: string | undefined): string | undefined {
  const caller = c.var.caller;
  return caller.kind === 'person' ? personOf(caller.person, named, 'requestedBy') : named;
}

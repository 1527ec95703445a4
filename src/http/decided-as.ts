// Who a decision sent to the API is recorded as: with a personal token, its person (a body naming anyone else is
// refused); with the shared bearer token, the name the caller gives, unless personal tokens are on and the shared
// token is kept for service-to-service calls that decide nothing on a person's behalf.
import type { Context } from 'hono';
import { HttpProblem, problem, samePerson } from '../kit/index.js';
import type { AppEnv } from './app-env.js';

/** How the app treats the names in decisions: whether personal tokens exist, and whether the shared token may still decide. */
export interface DecisionIdentity {
  readonly personTokens: boolean;
  readonly sharedTokenDecides: boolean;
}

/**
 * The `approvedBy` to record for a decision whose body named `named`. A personal token's person always; a body that
 * names someone else is a 403 `approver_mismatch`. With personal tokens on, the shared bearer token does not decide
 * (403 `person_token_required`) unless the app was told `sharedTokenDecides: true`.
 */
export function decidedAs(
  c: Context<AppEnv>,
  named: string | undefined,
  identity: DecisionIdentity,
): string | undefined {
  const caller = c.var.caller;
  if (caller.kind === 'person') {
    if (named !== undefined && !samePerson(named, caller.person))
      throw new HttpProblem(
        problem(
          403,
          'approver_mismatch',
          `This personal token is ${caller.person}'s: it decides only as ${caller.person}, not as ${named}. Leave approvedBy out; the token names who decided.`,
          { person: caller.person, approvedBy: named },
        ),
      );
    return caller.person;
  }
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

import type { StoredRule } from '../ports/rule-store.js';
import { recordSignature, withoutSignature } from '../run/record-signature.js';

/** Domain-separated from grants, decisions and requests: a rule's signature passes for nothing else. */
const rules = recordSignature<StoredRule>('countersign.rule.v1');

/** The stored rule with its signature over every field (its id, time and `enabled` too), when there is a secret. */
export function signRule(secret: string | undefined, rule: StoredRule): StoredRule {
  return Object.freeze(rules.sign(secret, withoutSignature(rule)));
}

/** True when `rule` is signed with `secret` as it stands. */
export function ruleSignatureHolds(secret: string, rule: StoredRule): boolean {
  return rules.holds(secret, rule);
}

import type { StoredRule } from '../ports/rule-store.js';
import { canonicalJson, hmac, safeEqual } from './digest.js';

/** Domain-separated from grants, decisions and requests: a rule's signature passes for nothing else. */
function ruleMac(secret: string, rule: StoredRule): string {
  const { signature: _signature, ...fields } = rule;
  return `v1.${hmac(secret, ['countersign.rule.v1', canonicalJson(fields)])}`;
}

/** The stored rule with its signature over every field (its id, time and `enabled` too), when there is a secret. */
export function signRule(secret: string | undefined, rule: StoredRule): StoredRule {
  const { signature: _signature, ...fields } = rule;
  return Object.freeze(secret === undefined ? fields : { ...fields, signature: ruleMac(secret, fields) });
}

/** True when `rule` is signed with `secret` as it stands. */
export function ruleSignatureHolds(secret: string, rule: StoredRule): boolean {
  return typeof rule.signature === 'string' && safeEqual(rule.signature, ruleMac(secret, rule));
}

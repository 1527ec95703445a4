// The Lua scripts of the Redis store, registered with ioredis `defineCommand`
// (EVALSHA, falling back to EVAL once per connection). Each touches only the
// keys of one run (one hash tag, so one Cluster slot), given in KEYS.
// The scripts live by concern: run-scripts.ts, index-scripts.ts, remember-scripts.ts and grant-scripts.ts.
import type { Cluster, Redis } from 'ioredis';
import { CONSUME_GRANT, PUT_GRANT, READ_GRANT, REVOKE_GRANT } from './grant-scripts.js';
import { INDEX_MEMBER } from './index-scripts.js';
import { REMEMBER, REPLACE_REMEMBERED, SET_RULE_ENABLED } from './remember-scripts.js';
import { DELETE_RUN, LOAD_RUN, WRITE_RUN } from './run-scripts.js';

type Reply = Promise<unknown>;

/** The commands `registerScripts` adds to a connection. */
export interface ScriptCommands {
  countersignWriteRun(head: string, msgs: string, audit: string, outbox: string, ...argv: (string | number)[]): Reply;
  countersignLoadRun(head: string, msgs: string, audit: string): Reply;
  countersignDeleteRun(head: string, msgs: string, audit: string, outbox: string): Reply;
  countersignRemember(key: string, value: string, ttlMs: number): Reply;
  countersignReplaceRemembered(
    key: string,
    expected: string,
    set: '1' | '0',
    value: string,
    ttlMs: number,
    callId: string,
  ): Reply;
  countersignIndexMember(index: string, score: number, member: string, ttlMs: number): Reply;
  countersignSetRuleEnabled(rules: string, id: string, expected: string, value: string): Reply;
  countersignPutGrant(grant: string, json: string, ttlMs: string, token: string, ...uses: string[]): Reply;
  countersignConsumeGrant(grant: string, now: string, field: string, receipt: string, seenUsed: string): Reply;
  countersignReadGrant(grant: string): Reply;
  countersignRevokeGrant(grant: string, token: string): Reply;
}

/** Every script, by the command `registerScripts` defines for it (the lost-reply test has a case for each). */
export const SCRIPT_DEFINITIONS: Readonly<
  Record<keyof ScriptCommands, { readonly lua: string; readonly numberOfKeys: number; readonly readOnly?: boolean }>
> = {
  countersignWriteRun: { lua: WRITE_RUN, numberOfKeys: 4 },
  countersignLoadRun: { lua: LOAD_RUN, numberOfKeys: 3, readOnly: true },
  countersignDeleteRun: { lua: DELETE_RUN, numberOfKeys: 4 },
  countersignRemember: { lua: REMEMBER, numberOfKeys: 1 },
  countersignReplaceRemembered: { lua: REPLACE_REMEMBERED, numberOfKeys: 1 },
  countersignIndexMember: { lua: INDEX_MEMBER, numberOfKeys: 1 },
  countersignSetRuleEnabled: { lua: SET_RULE_ENABLED, numberOfKeys: 1 },
  countersignPutGrant: { lua: PUT_GRANT, numberOfKeys: 1 },
  countersignConsumeGrant: { lua: CONSUME_GRANT, numberOfKeys: 1 },
  countersignReadGrant: { lua: READ_GRANT, numberOfKeys: 1, readOnly: true },
  countersignRevokeGrant: { lua: REVOKE_GRANT, numberOfKeys: 1 },
};

/** Defines the scripts on a connection once (every store sharing it reuses them) and returns it typed. */
export function registerScripts(redis: Redis | Cluster): ScriptCommands {
  const target = redis as unknown as Record<string, unknown>;
  for (const [name, definition] of Object.entries(SCRIPT_DEFINITIONS)) {
    if (typeof target[name] !== 'function') redis.defineCommand(name, definition);
  }
  return redis as unknown as ScriptCommands;
}

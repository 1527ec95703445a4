import type { ConsumeOutcome, Grant, GrantFilter, GrantState, GrantStore, GrantUse } from '../../ports/grant-store.js';

interface Entry {
  readonly grant: Grant;
  /** The uses spent, by `useKey`. */
  readonly uses: Map<string, GrantUse>;
  revoked: boolean;
}

/** Whether a grant is live at `now` and matches a listing's filter; shared by the adapters. */
export function isListed(grant: GrantState, revoked: boolean, filter: GrantFilter): boolean {
  return (
    !revoked &&
    (grant.expiresAt === undefined || filter.now < grant.expiresAt) &&
    (filter.includeUsedUp === true || grant.uses === undefined || grant.used < grant.uses) &&
    (filter.sessionId === undefined || grant.sessionId === filter.sessionId) &&
    (filter.agentName === undefined || grant.agentName === filter.agentName) &&
    (filter.scope === undefined || grant.scope === filter.scope)
  );
}

/**
 * Grants kept in this process's memory: the default of every agent, so sessions work out of the box. Use
 * `createRedisGrantStore` (`countersign/redis`) to share them between processes.
 *
 * @example
 * const grants = createMemoryGrantStore();
 * const agent = createAgent({ name: 'files', model, tools, grantStore: grants });
 */
export function createMemoryGrantStore(): GrantStore {
  const entries = new Map<string, Entry>();
  return {
    async put(grant, uses = []) {
      if (entries.has(grant.id)) return false;
      const spent = new Map(
        uses.filter((use) => use.grantId === grant.id).map((use) => [use.useKey, Object.freeze({ ...use })]),
      );
      entries.set(grant.id, { grant: Object.freeze({ ...grant }), uses: spent, revoked: false });
      return true;
    },
    async list(filter) {
      const listed: GrantState[] = [];
      for (const [id, entry] of entries) {
        // An expired grant covers nothing again, and writing it again would make it expired again: it can go.
        if (entry.grant.expiresAt !== undefined && filter.now >= entry.grant.expiresAt) {
          entries.delete(id);
          continue;
        }
        const state = Object.freeze({ ...entry.grant, used: entry.uses.size });
        if (isListed(state, entry.revoked, filter)) listed.push(state);
      }
      return listed.sort((a, b) => a.grantedAt - b.grantedAt);
    },
    async consume(use): Promise<ConsumeOutcome> {
      const entry = entries.get(use.grantId);
      if (!entry) return 'missing';
      if (entry.revoked) return 'revoked';
      if (entry.grant.expiresAt !== undefined && use.at >= entry.grant.expiresAt) return 'expired';
      if (entry.uses.has(use.useKey)) return 'used';
      if (entry.grant.uses !== undefined && entry.uses.size >= entry.grant.uses) return 'used-up';
      entry.uses.set(use.useKey, Object.freeze({ ...use }));
      return 'used';
    },
    async get(id) {
      const entry = entries.get(id);
      return entry && Object.freeze({ grant: entry.grant, used: entry.uses.size, revoked: entry.revoked });
    },
    async useOf(grantId, useKey) {
      return entries.get(grantId)?.uses.get(useKey);
    },
    async revoke(id) {
      const entry = entries.get(id);
      if (!entry || entry.revoked) return false;
      entry.revoked = true;
      return true;
    },
    async revokeSession(sessionId) {
      let count = 0;
      for (const entry of entries.values()) {
        if (entry.grant.sessionId === sessionId && !entry.revoked) {
          entry.revoked = true;
          count += 1;
        }
      }
      return count;
    },
  };
}

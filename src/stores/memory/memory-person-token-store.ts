import { ConfigError } from '../../errors.js';
import type { PersonTokenStore, StoredPersonToken } from '../../ports/person-token-store.js';

/**
 * A `PersonTokenStore` in this process's memory: for tests and a single process; tokens are gone when it stops.
 *
 * @example
 * const runtime = createRuntime({ agents: [agent], personTokens: createMemoryPersonTokenStore() });
 * const { token } = await runtime.personTokens!.issue({ person: 'ana@example.com' });
 */
export function createMemoryPersonTokenStore(): PersonTokenStore {
  const tokens = new Map<string, StoredPersonToken>();
  return {
    async add(token) {
      if (tokens.has(token.id)) throw new ConfigError(`A personal token with id ${token.id} is already kept.`);
      tokens.set(token.id, Object.freeze({ ...token }));
    },
    async get(id) {
      return tokens.get(id);
    },
    async list() {
      return [...tokens.values()].sort((a, b) => a.createdAt - b.createdAt);
    },
    async revoke(id, at) {
      const token = tokens.get(id);
      if (token === undefined || token.revokedAt !== undefined) return token;
      const revoked = Object.freeze({ ...token, revokedAt: at });
      tokens.set(id, revoked);
      return revoked;
    },
  };
}

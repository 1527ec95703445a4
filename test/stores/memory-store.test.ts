import { createMemoryStore, type RunEvent } from 'countersign';
import { describeStoreContract } from '../support/store-contract.js';

describeStoreContract('memory store', async () => {
  const store = createMemoryStore();
  const events: RunEvent[] = [];
  store.subscribe((event) => events.push(event));
  return { store, published: async () => events };
});

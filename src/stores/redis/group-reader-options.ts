import type { RedisClient } from './redis-client.js';
import type { StreamErrorInfo } from './stream-error-info.js';
import type { HeldEntry } from './stream-entries.js';

/** What one consumer of a Redis Stream consumer group (`runGroupReader`) reads, and what it does with each entry. */
export interface GroupReaderOptions {
  readonly redis: RedisClient;
  readonly key: string;
  readonly group: string;
  readonly consumer: string;
  /** Where a group created here starts: `'0'` every entry in the stream, `'$'` only new ones. */
  readonly startId: '0' | '$';
  readonly blockMs: number;
  readonly claimIdleMs: number;
  /** Most entries held (read but not yet settled) at once. */
  readonly batch: number;
  /** Most handlers running at once; entries start in the order they arrived. */
  readonly concurrency: number;
  readonly maxDeliveries: number;
  /** Also XDEL an entry once it is acked (for a stream read by this one group only). */
  readonly deleteOnAck: boolean;
  /** Resolves `true` to ack, `false` to leave the entry pending (already reported); a rejection also leaves it pending. */
  readonly handle: (entry: HeldEntry) => Promise<boolean>;
  readonly onError: (info: StreamErrorInfo) => void;
}

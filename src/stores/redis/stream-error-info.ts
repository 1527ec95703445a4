// What the stream readers (the event notifier, the resume worker) report about problems they handled.

/**
 * What a stream reader tells `onError` about a problem it handled without stopping.
 *
 * @example
 * createStreamNotifier({ redis, group: 'slack', onError: (info: StreamErrorInfo) => log.warn({ phase: info.phase, entry: info.entryId }, String(info.error)) });
 */
export interface StreamErrorInfo {
  readonly error: unknown;
  /**
   * Where it happened: `'read'`, `'claim'`, `'heartbeat'`, `'ack'` and
   * `'group'` are Redis calls (retried); `'handler'` is the handler rejecting
   * (the entry stays pending and is delivered again once idle for
   * `claimIdleMs`); `'malformed'` is an entry that could not be read (acked);
   * `'dead-letter'` is an entry delivered more than `maxDeliveries` times
   * (copied to the dead-letter stream, then acked).
   */
  readonly phase: 'read' | 'claim' | 'heartbeat' | 'ack' | 'group' | 'handler' | 'malformed' | 'dead-letter';
  /** The stream entry id, when the problem is about one entry. */
  readonly entryId?: string;
  /** How many times the entry has been delivered, counting this time. */
  readonly deliveries?: number;
}

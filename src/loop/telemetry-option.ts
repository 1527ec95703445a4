// The `telemetry` option of `createRuntime` and `agent.execute`: checked once, by its shape, for both.
import { z } from 'zod';
import type { Telemetry } from '../ports/telemetry.js';

export const telemetryOption = z.custom<Telemetry>(
  (value) =>
    typeof (value as Telemetry | undefined)?.execute === 'function' &&
    typeof (value as Telemetry).recorded === 'function',
  'must implement Telemetry (openTelemetry() from countersign/otel)',
);

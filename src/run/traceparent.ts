// A W3C `traceparent` (version 00) as countersign takes it from a caller: the trace a run continues, or what a tool
// passes on. Checked at the boundary; nothing else reads its parts.
import { z } from 'zod';

export const traceparentSchema = z
  .string()
  .regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'must be a W3C traceparent, 00-<32 hex>-<16 hex>-<2 hex>');

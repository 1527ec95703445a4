// The OpenAPI 3.1 document of the approval app: its info and servers here, the components and paths in openapi-parts.ts and openapi-paths.ts.
import { components } from './openapi-parts.js';
import { paths } from './openapi-paths.js';

/**
 * The OpenAPI 3.1 document of the approval app, built from the zod schemas
 * that validate its requests (`GET /openapi.json` serves it).
 *
 * @example
 * const doc = openApiDocument({ title: 'Approvals' });
 * Object.keys(doc.paths); // ['/runs', '/runs/{runId}', ...]
 */
export function openApiDocument(
  options: { readonly title?: string; readonly version?: string; readonly serverUrl?: string } = {},
) {
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'countersign approvals',
      version: options.version ?? '1',
      description:
        'Approve or deny the risky tool calls of AI agents. Writes take a bearer token or a Standard Webhooks signature over the raw body; a signed body names its target (`runId`, `approvalId`), and a redelivered `webhook-id` gets the first answer back (another request under a used id is refused).',
    },
    ...(options.serverUrl === undefined ? {} : { servers: [{ url: options.serverUrl }] }),
    components: components(),
    paths: paths(),
  };
}

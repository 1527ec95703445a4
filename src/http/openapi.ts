import { z } from 'zod';
import { newRuleBody, removeRuleBody, ruleStateBody } from './routes/rules.js';
import {
  acceptedAnswerSchema,
  batchAnswerSchema,
  batchBody,
  cancelBody,
  clearSessionBody,
  connectorsAnswerSchema,
  grantsAnswerSchema,
  grantsQuery,
  revokedAnswerSchema,
  revokeGrantBody,
  decisionAnswerSchema,
  decisionBody,
  eventsQuery,
  pendingPageSchema,
  pendingQuery,
  problemSchema,
  runAnswerSchema,
  runViewSchema,
  startRunBody,
} from './schemas.js';

type JsonSchema = Record<string, unknown>;

const inputSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};
const outputSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const problemAnswer = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });

const errors = (...statuses: number[]) => {
  const text: Record<number, string> = {
    400: 'Invalid body or query (`invalid_body`, `invalid_query`, `invalid_config`, `invalid_signature` for a wrong or missing signature echo), a signed body that names no target (`target_mismatch`, `reason: missing`), or a body cut off by the client (`body_aborted`).',
    401: 'Missing or wrong bearer token (`unauthorized`) or webhook signature (`invalid_webhook_signature`, with `reason`).',
    403: 'The approver may not decide this approval (`approver_not_allowed`), the body names another run or approval than the URL (`target_mismatch`, `reason: mismatch`), or, in insecure demo mode, a Host or Origin that is not loopback (`not_loopback`).',
    404: 'Unknown run, approval or agent (`run_not_found`, `unknown_approval`, `agent_not_found`).',
    409: 'A different decision was recorded first (`decision_conflict`, with `winner`), the run no longer waits (`run_not_awaiting_approval`), the run id (or Idempotency-Key) is taken by another start (`run_exists`; the same start again gets its run), the `webhook-id` was used for another request (`webhook_id_reused`), or its first delivery is still being handled (`webhook_in_progress`, with `Retry-After`).',
    410: 'The approval expired (`approval_expired`).',
    413: 'The body is larger than the limit (`body_too_large`).',
    415: 'Only with `insecure: true`: a write that is not `content-type: application/json` (`unsupported_media_type`).',
    422: 'Edited arguments do not match the tool input schema (`invalid_edit`, with `issues`).',
    503: 'The store is unavailable (`store_unavailable`); retry after `Retry-After` seconds.',
  };
  return Object.fromEntries(statuses.map((status) => [String(status), problemAnswer(text[status]!)]));
};

const queryParameters = (schema: z.ZodObject) =>
  Object.entries((inputSchema(schema)['properties'] ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: 'query',
    required: false,
    schema: property,
  }));

const pathParameter = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 256 } });

/**
 * The OpenAPI 3.1 document of the approval app, built from the zod schemas
 * that validate its requests (`GET /openapi.json` serves it).
 *
 * @example
 * const doc = openApiDocument({ title: 'Approvals' });
 * Object.keys(doc.paths); // ['/runs', '/runs/{runId}', ...]
 */
export function openApiDocument(options: { readonly title?: string; readonly version?: string; readonly serverUrl?: string } = {}) {
  const writeSecurity = [{ bearer: [] }, { standardWebhooks: [] }];
  const readSecurity = [{ bearer: [] }];
  const accepted = {
    description:
      'The decision (or the new run) is recorded, and the run is still going after `resumeTimeoutMs`, was queued for a worker, or goes on in the process that follows it (resumeMode `record`); read `GET /runs/{runId}` later. Nothing unrecorded is ever answered 2xx: that is a 503.',
    content: json(ref('Accepted')),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'countersign approvals',
      version: options.version ?? '1',
      description:
        'Approve or deny the risky tool calls of AI agents. Writes take a bearer token or a Standard Webhooks signature over the raw body; a signed body names its target (`runId`, `approvalId`), and a redelivered `webhook-id` gets the first answer back (another request under a used id is refused).',
    },
    ...(options.serverUrl === undefined ? {} : { servers: [{ url: options.serverUrl }] }),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        standardWebhooks: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description: 'HMAC-SHA256 over `webhook-id.webhook-timestamp.body` (Standard Webhooks); also send `webhook-id` and `webhook-timestamp` (±300 s).',
        },
      },
      schemas: {
        StartRun: inputSchema(startRunBody),
        Decision: inputSchema(decisionBody),
        Batch: inputSchema(batchBody),
        Cancel: inputSchema(cancelBody),
        RevokeGrant: inputSchema(revokeGrantBody),
        ClearSession: inputSchema(clearSessionBody),
        RunView: outputSchema(runViewSchema),
        RunAnswer: outputSchema(runAnswerSchema),
        DecisionAnswer: outputSchema(decisionAnswerSchema),
        BatchAnswer: outputSchema(batchAnswerSchema),
        Accepted: outputSchema(acceptedAnswerSchema),
        PendingPage: outputSchema(pendingPageSchema),
        Connectors: outputSchema(connectorsAnswerSchema),
        Grants: outputSchema(grantsAnswerSchema),
        Revoked: outputSchema(revokedAnswerSchema),
        Problem: outputSchema(problemSchema),
        NewRule: inputSchema(newRuleBody),
        RuleState: inputSchema(ruleStateBody),
        RemoveRule: inputSchema(removeRuleBody),
      },
    },
    paths: {
      '/runs': {
        post: {
          operationId: 'startRun',
          summary: 'Start a run; answers once it pauses for approval or ends.',
          security: writeSecurity,
          requestBody: { required: true, content: json(ref('StartRun')) },
          responses: { '201': { description: 'The run paused or ended.', content: json(ref('RunAnswer')) }, '202': accepted, ...errors(400, 401, 404, 409, 413, 415, 503) },
        },
      },
      '/runs/{runId}': {
        get: {
          operationId: 'getRun',
          summary: "A run's public view (no raw messages).",
          security: readSecurity,
          parameters: [pathParameter('runId')],
          responses: { '200': { description: 'The run.', content: json(ref('RunView')) }, ...errors(400, 401, 404, 503) },
        },
      },
      '/approvals': {
        get: {
          operationId: 'listPendingApprovals',
          summary: 'Pending approvals across runs, soonest expiry first, paginated.',
          security: readSecurity,
          parameters: queryParameters(pendingQuery),
          responses: { '200': { description: 'A page; pass `cursor` back for the next.', content: json(ref('PendingPage')) }, ...errors(400, 401, 503) },
        },
      },
      '/connectors': {
        get: {
          operationId: 'listConnectors',
          summary: "The connectors the runtime's agents use (tools with a connector status, such as MCP servers) and their status now.",
          security: readSecurity,
          responses: { '200': { description: 'Every connector, once, with the worst status its tools report.', content: json(ref('Connectors')) }, ...errors(401) },
        },
      },
      '/grants': {
        get: {
          operationId: 'listGrants',
          summary: 'Live session and agent grants (not revoked, expired or used up), of one session or agent, or all.',
          security: readSecurity,
          parameters: queryParameters(grantsQuery),
          responses: { '200': { description: 'The grants, oldest first.', content: json(ref('Grants')) }, ...errors(400, 401, 503) },
        },
      },
      '/grants/{grantId}': {
        delete: {
          operationId: 'revokeGrant',
          summary: 'Revoke a grant at once: the next call it would have decided is put to a person.',
          security: writeSecurity,
          parameters: [pathParameter('grantId')],
          requestBody: { required: false, content: json(ref('RevokeGrant')) },
          responses: { '200': { description: 'revoked: 1, or 0 when no live grant has that id.', content: json(ref('Revoked')) }, ...errors(400, 401, 413, 415, 503) },
        },
      },
      '/sessions/{sessionId}/grants': {
        delete: {
          operationId: 'clearSession',
          summary: 'Revoke every grant of a session (approvals and denials).',
          security: writeSecurity,
          parameters: [pathParameter('sessionId')],
          requestBody: { required: false, content: json(ref('ClearSession')) },
          responses: { '200': { description: 'How many grants were revoked.', content: json(ref('Revoked')) }, ...errors(400, 401, 413, 415, 503) },
        },
      },
      '/runs/{runId}/approvals/{approvalId}': {
        post: {
          operationId: 'decide',
          summary: 'Approve or deny one approval; answers once the run pauses again or ends.',
          security: writeSecurity,
          parameters: [pathParameter('runId'), pathParameter('approvalId')],
          requestBody: { required: true, content: json(ref('Decision')) },
          responses: {
            '200': { description: 'Recorded (or an identical repeat: `duplicate: true`).', content: json(ref('DecisionAnswer')) },
            '202': accepted,
            ...errors(400, 401, 403, 404, 409, 410, 413, 415, 422, 503),
          },
        },
      },
      '/runs/{runId}/approvals': {
        post: {
          operationId: 'decideMany',
          summary: 'Approve all, deny all, or a list of decisions; per-item results.',
          security: writeSecurity,
          parameters: [pathParameter('runId')],
          requestBody: { required: true, content: json(ref('Batch')) },
          responses: { '200': { description: 'Every item was tried.', content: json(ref('BatchAnswer')) }, '202': accepted, ...errors(400, 401, 403, 404, 409, 413, 415, 503) },
        },
      },
      '/runs/{runId}/cancel': {
        post: {
          operationId: 'cancelRun',
          summary: 'Cancel a run (a run that already ended is returned as it is).',
          security: writeSecurity,
          parameters: [pathParameter('runId')],
          requestBody: { required: false, content: json(ref('Cancel')) },
          responses: { '200': { description: 'The run.', content: json(ref('RunAnswer')) }, ...errors(400, 401, 403, 404, 409, 413, 415, 503) },
        },
      },
      '/events': {
        get: {
          operationId: 'events',
          summary: 'Server-sent events: approval-requested, approval-resolved, tool-finished, run-completed, run-failed, run-cancelled, model-delta (data: the event as JSON).',
          security: readSecurity,
          parameters: queryParameters(eventsQuery),
          responses: { '200': { description: 'An event stream with heartbeat comments.', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errors(400, 401) },
        },
      },
      '/links/{token}': {
        get: {
          operationId: 'linkPage',
          summary: 'Confirmation page of a one-click link; changes nothing. The token authenticates itself.',
          security: [],
          parameters: [pathParameter('token')],
          responses: {
            '200': { description: 'The page, with a form that POSTs the decision.', content: { 'text/html': { schema: { type: 'string' } } } },
            '401': { description: 'Forged or malformed token.', content: { 'text/html': { schema: { type: 'string' } } } },
            '410': { description: 'Expired token, or the approval is no longer pending.', content: { 'text/html': { schema: { type: 'string' } } } },
          },
        },
        post: {
          operationId: 'linkDecide',
          summary: 'Spend a one-click link token (once) and record its decision.',
          security: [],
          parameters: [pathParameter('token')],
          responses: {
            '200': { description: 'Result page.', content: { 'text/html': { schema: { type: 'string' } } } },
            '401': { description: 'Forged or malformed token.', content: { 'text/html': { schema: { type: 'string' } } } },
            '409': { description: 'Already decided otherwise, or the run no longer waits.', content: { 'text/html': { schema: { type: 'string' } } } },
            '410': { description: 'Token used or expired, or the approval expired.', content: { 'text/html': { schema: { type: 'string' } } } },
          },
        },
      },
      '/agents/{agent}/tools': {
        get: {
          operationId: 'listAgentTools',
          summary: "An agent's tools as the model sees them: name, description and the JSON Schema of the input (to check an edit before sending it).",
          security: readSecurity,
          parameters: [pathParameter('agent')],
          responses: { '200': { description: '`{ agent, tools: [{ name, description, parameters }] }`' }, ...errors(401, 404) },
        },
      },
      '/rules': {
        get: {
          operationId: 'listRules',
          summary: 'The stored rules (only when the app was given `rules`). Among matching rules deny beats ask beats allow; rules decide before the tool does.',
          security: readSecurity,
          responses: { '200': { description: '`{ items: StoredRule[] }`' }, ...errors(401, 404) },
        },
        post: {
          operationId: 'addRule',
          summary: 'Add a stored rule; it applies from the next call of every run.',
          security: writeSecurity,
          requestBody: { required: true, content: json(ref('NewRule')) },
          responses: { '201': { description: '`{ rule }`: the rule with its id, createdAt and enabled.' }, ...errors(400, 401, 404, 413, 415) },
        },
      },
      '/rules/{ruleId}': {
        post: {
          operationId: 'setRuleEnabled',
          summary: 'Enable or disable a stored rule (a disabled rule is kept and matches nothing).',
          security: writeSecurity,
          parameters: [pathParameter('ruleId')],
          requestBody: { required: true, content: json(ref('RuleState')) },
          responses: { '200': { description: '`{ rule }`' }, ...errors(400, 401, 404, 413, 415) },
        },
        delete: {
          operationId: 'removeRule',
          summary: 'Remove a stored rule.',
          security: writeSecurity,
          parameters: [pathParameter('ruleId')],
          requestBody: { required: false, content: json(ref('RemoveRule')) },
          responses: { '200': { description: '`{ removed: true, ruleId }`' }, ...errors(400, 401, 404, 413, 415) },
        },
      },
      '/openapi.json': { get: { operationId: 'openapi', summary: 'This document.', security: [], responses: { '200': { description: 'OpenAPI 3.1.' } } } },
      '/healthz': { get: { operationId: 'health', summary: 'Liveness.', security: [], responses: { '200': { description: '`{ "ok": true }`' } } } },
    },
  };
}

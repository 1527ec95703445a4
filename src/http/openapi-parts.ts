// The building blocks of the approval app's OpenAPI document: JSON Schemas from zod, shared answers and parameters, and the components.
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
  revokedAnswerSchema,
  revokeGrantBody,
  decisionAnswerSchema,
  decisionBody,
  pendingPageSchema,
  problemSchema,
  runAnswerSchema,
  runViewSchema,
  startRunBody,
} from './schemas.js';
import { approvalAskSchema } from '../kit/index.js';
import { requestCancelBody, requestStateSchema } from './request-schemas.js';
import { insightsAnswerSchema } from './insights-schemas.js';

export const inputSchema = (schema: z.ZodType): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
};
export const outputSchema = (schema: z.ZodType): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
};

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });
export const problemAnswer = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

export const errors = (...statuses: number[]) => {
  const text: Record<number, string> = {
    400: 'Invalid body or query (`invalid_body`, `invalid_query`, `invalid_config`, `invalid_idempotency_key`, `invalid_signature` for a wrong or missing signature echo), a signed body that names no target (`target_mismatch`, `reason: missing`), or a body cut off by the client (`body_aborted`).',
    401: 'Missing or wrong bearer token (`unauthorized`) or webhook signature (`invalid_webhook_signature`, with `reason`).',
    403: "The approver may not decide this approval (`approver_not_allowed`), the decision is of a kind the request does not offer (`decision_not_offered`, with `asked` and `offered`: see the request's `decisions`), the body names another run or approval than the URL (`target_mismatch`, `reason: mismatch`), or, in insecure demo mode, a Host or Origin that is not loopback (`not_loopback`).",
    404: 'Unknown run, approval or agent (`run_not_found`, `unknown_approval`, `agent_not_found`), or a request id that names a run of an agent (`not_a_request`).',
    409: 'A different decision was recorded first (`decision_conflict`, with `winner`), the run no longer waits (`run_not_awaiting_approval`), the run id (or Idempotency-Key) is taken by another start, or a request key by another ask (`run_exists`; the same start or ask again gets its run or request), the `webhook-id` was used for another request (`webhook_id_reused`), or its first delivery is still being handled (`webhook_in_progress`, with `Retry-After`).',
    410: 'The approval expired (`approval_expired`).',
    413: 'The body is larger than the limit (`body_too_large`).',
    415: 'Only with `insecure: true`: a write that is not `content-type: application/json` (`unsupported_media_type`).',
    422: 'Edited arguments do not match the tool input schema (`invalid_edit`, with `issues`).',
    503: 'The store is unavailable (`store_unavailable`); retry after `Retry-After` seconds.',
  };
  return Object.fromEntries(statuses.map((status) => [String(status), problemAnswer(text[status]!)]));
};

export const queryParameters = (schema: z.ZodObject) =>
  Object.entries((inputSchema(schema)['properties'] ?? {}) as Record<string, Record<string, unknown>>).map(
    ([name, property]) => ({
      name,
      in: 'query',
      required: false,
      schema: property,
    }),
  );

export const pathParameter = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 256 },
});

/** Writes take a bearer token or a Standard Webhooks signature. */
export const writeSecurity = () => [{ bearer: [] }, { standardWebhooks: [] }];
/** Reads take a bearer token. */
export const readSecurity = () => [{ bearer: [] }];

/** The 202 answer of a write whose run goes on after the answer. */
export const accepted = () => ({
  description:
    'The decision (or the new run) is recorded, and the run is still going after `resumeTimeoutMs`, was queued for a worker, or goes on in the process that follows it (resumeMode `record`); read `GET /runs/{runId}` later. Nothing unrecorded is ever answered 2xx: that is a 503.',
  content: json(ref('Accepted')),
});

/** The core's ask schema, whose `args` (checked by a refinement JSON Schema cannot say) is described here. */
function approvalAsk(): Record<string, unknown> {
  const schema = inputSchema(approvalAskSchema);
  const properties = schema['properties'] as Record<string, unknown>;
  return {
    ...schema,
    description: 'What `runtime.requestApproval` takes: the action (`tool`, `args`) and how the person is asked.',
    properties: {
      ...properties,
      args: {
        type: 'object',
        description:
          'What the action would do: plain JSON (no `__proto__`, `constructor` or `prototype` keys, at most 64 levels deep), shown to the person (secrets redacted) and bound by the decision.',
      },
    },
  };
}

/** The document's components: its security schemes, and the schemas of every body and answer. */
export function components() {
  return {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      standardWebhooks: {
        type: 'apiKey',
        in: 'header',
        name: 'webhook-signature',
        description:
          'HMAC-SHA256 over `webhook-id.webhook-timestamp.body` (Standard Webhooks); also send `webhook-id` and `webhook-timestamp` (±300 s).',
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
      Insights: outputSchema(insightsAnswerSchema),
      ApprovalAsk: approvalAsk(),
      RequestState: outputSchema(requestStateSchema),
      RequestCancel: inputSchema(requestCancelBody),
      Problem: outputSchema(problemSchema),
      NewRule: inputSchema(newRuleBody),
      RuleState: inputSchema(ruleStateBody),
      RemoveRule: inputSchema(removeRuleBody),
    },
  };
}

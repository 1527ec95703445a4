// The paths of the requests from callers outside the agent loop in the approval app's OpenAPI document: asked, read or
// waited for, and withdrawn. Decided like any approval (`POST /runs/{runId}/approvals/{approvalId}`).
import { errors, json, pathParameter, queryParameters, readSecurity, ref, writeSecurity } from './openapi-parts.js';
import { requestWaitQuery } from './request-schemas.js';

const stateAnswer = (description: string) => ({ description, content: json(ref('RequestState')) });

/** `POST /approvals`, `GET /approvals/{requestId}`, `POST /approvals/{requestId}/cancel`. */
export function requestPaths() {
  return {
    '/approvals/{requestId}': {
      get: {
        operationId: 'getApprovalRequest',
        summary:
          'Where a request stands; with `waitMs`, a long-poll answered as soon as its decision is recorded (by any process on the store), or with the pending state when the wait runs out.',
        security: readSecurity(),
        parameters: [pathParameter('requestId'), ...queryParameters(requestWaitQuery)],
        responses: {
          '200': stateAnswer(
            'The request: `pending` (with `request`), or how it ended (`args` to act on when approved).',
          ),
          ...errors(400, 401, 404, 503),
        },
      },
    },
    '/approvals/{requestId}/cancel': {
      post: {
        operationId: 'cancelApprovalRequest',
        summary: 'Withdraw a pending request: nobody can approve it any longer (a decided one is answered as decided).',
        security: writeSecurity(),
        parameters: [pathParameter('requestId')],
        requestBody: { required: false, content: json(ref('RequestCancel')) },
        responses: {
          '200': stateAnswer('The request, cancelled or as it was decided.'),
          ...errors(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
  };
}

/** `POST /approvals`, beside `GET /approvals` (the pending list) under one path. */
export function askOperation() {
  return {
    operationId: 'requestApproval',
    summary:
      "Ask a person about an action of a caller outside the agent loop (a script, a workflow step, a hook): the request policy, grants, quorum, channels and audit apply as to an agent call. Idempotent by `key`, the `Idempotency-Key` header, or a signed delivery's `webhook-id`.",
    security: writeSecurity(),
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 256 },
        description: 'Instead of `key` in the body (not both): the same ask again gets the same request.',
      },
    ],
    requestBody: { required: true, content: json(ref('ApprovalAsk')) },
    responses: {
      '201': {
        description:
          'Recorded (and announced when it asks a person): `pending`, or decided at once by a rule or grant. `Location: /approvals/{requestId}`.',
        headers: { Location: { schema: { type: 'string' } } },
        content: json(ref('RequestState')),
      },
      ...errors(400, 401, 409, 413, 415, 503),
    },
  };
}

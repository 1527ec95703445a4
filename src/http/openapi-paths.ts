// The paths of the approval app's OpenAPI document, one function a route group, in the document's order: a little over
// 300 lines on purpose, since the paths are data read from top to bottom and split further would scatter one document.
import {
  accepted,
  errors,
  json,
  pathParameter,
  queryParameters,
  readSecurity,
  ref,
  writeSecurity,
} from './openapi-parts.js';
import { askOperation, requestPaths } from './openapi-request-paths.js';
import { insightsQuery } from './insights-schemas.js';
import { eventsQuery, grantsQuery, pendingQuery } from './schemas.js';

/** Every path of the document, in its order. */
export function paths() {
  return { ...runPaths(), ...requestPaths(), ...grantPaths(), ...decisionPaths(), ...linkPaths(), ...rulePaths() };
}

/** Starting a run, reading it, asking from outside the agent loop, and what a reviewer reads: pending approvals, connectors and insights. */
function runPaths() {
  return {
    '/runs': {
      post: {
        operationId: 'startRun',
        summary: 'Start a run; answers once it pauses for approval or ends.',
        security: writeSecurity(),
        requestBody: { required: true, content: json(ref('StartRun')) },
        responses: {
          '201': { description: 'The run paused or ended.', content: json(ref('RunAnswer')) },
          '202': accepted(),
          ...errors(400, 401, 404, 409, 413, 415, 503),
        },
      },
    },
    '/runs/{runId}': {
      get: {
        operationId: 'getRun',
        summary: "A run's public view (no raw messages).",
        security: readSecurity(),
        parameters: [pathParameter('runId')],
        responses: { '200': { description: 'The run.', content: json(ref('RunView')) }, ...errors(400, 401, 404, 503) },
      },
    },
    '/approvals': {
      get: {
        operationId: 'listPendingApprovals',
        summary: 'Pending approvals across runs, soonest expiry first, paginated.',
        security: readSecurity(),
        parameters: queryParameters(pendingQuery),
        responses: {
          '200': { description: 'A page; pass `cursor` back for the next.', content: json(ref('PendingPage')) },
          ...errors(400, 401, 503),
        },
      },
      post: askOperation(),
    },
    '/connectors': {
      get: {
        operationId: 'listConnectors',
        summary:
          "The connectors the runtime's agents use (tools with a connector status, such as MCP servers) and their status now.",
        security: readSecurity(),
        responses: {
          '200': {
            description: 'Every connector, once, with the worst status its tools report.',
            content: json(ref('Connectors')),
          },
          ...errors(401),
        },
      },
    },
    '/insights': {
      get: {
        operationId: 'getInsights',
        summary:
          'Per tool and per approver: requests, outcomes, approval rate and time to decide, over the decisions this app has seen (not for an inbox session).',
        security: readSecurity(),
        parameters: queryParameters(insightsQuery),
        responses: { '200': { description: 'The insights.', content: json(ref('Insights')) }, ...errors(400, 401) },
      },
    },
  };
}

/** Grants: listing them, revoking one, clearing a session. */
function grantPaths() {
  return {
    '/grants': {
      get: {
        operationId: 'listGrants',
        summary: 'Live session and agent grants (not revoked, expired or used up), of one session or agent, or all.',
        security: readSecurity(),
        parameters: queryParameters(grantsQuery),
        responses: {
          '200': { description: 'The grants, oldest first.', content: json(ref('Grants')) },
          ...errors(400, 401, 503),
        },
      },
    },
    '/grants/{grantId}': {
      delete: {
        operationId: 'revokeGrant',
        summary: 'Revoke a grant at once: the next call it would have decided is put to a person.',
        security: writeSecurity(),
        parameters: [pathParameter('grantId')],
        requestBody: { required: false, content: json(ref('RevokeGrant')) },
        responses: {
          '200': { description: 'revoked: 1, or 0 when no live grant has that id.', content: json(ref('Revoked')) },
          ...errors(400, 401, 413, 415, 503),
        },
      },
    },
    '/sessions/{sessionId}/grants': {
      delete: {
        operationId: 'clearSession',
        summary: 'Revoke every grant of a session (approvals and denials).',
        security: writeSecurity(),
        parameters: [pathParameter('sessionId')],
        requestBody: { required: false, content: json(ref('ClearSession')) },
        responses: {
          '200': { description: 'How many grants were revoked.', content: json(ref('Revoked')) },
          ...errors(400, 401, 413, 415, 503),
        },
      },
    },
  };
}

/** Deciding a run's approvals, one or many, cancelling it, and following events. */
function decisionPaths() {
  return {
    '/runs/{runId}/approvals/{approvalId}': {
      post: {
        operationId: 'decide',
        summary:
          'Approve or deny one approval (a question: answer it with `answer`, or deny to decline); answers once the run pauses again or ends.',
        security: writeSecurity(),
        parameters: [pathParameter('runId'), pathParameter('approvalId')],
        requestBody: { required: true, content: json(ref('Decision')) },
        responses: {
          '200': {
            description: 'Recorded (or an identical repeat: `duplicate: true`).',
            content: json(ref('DecisionAnswer')),
          },
          '202': accepted(),
          ...errors(400, 401, 403, 404, 409, 410, 413, 415, 422, 503),
        },
      },
    },
    '/runs/{runId}/approvals': {
      post: {
        operationId: 'decideMany',
        summary: 'Approve all, deny all, or a list of decisions; per-item results.',
        security: writeSecurity(),
        parameters: [pathParameter('runId')],
        requestBody: { required: true, content: json(ref('Batch')) },
        responses: {
          '200': { description: 'Every item was tried.', content: json(ref('BatchAnswer')) },
          '202': accepted(),
          ...errors(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
    '/runs/{runId}/cancel': {
      post: {
        operationId: 'cancelRun',
        summary: 'Cancel a run (a run that already ended is returned as it is).',
        security: writeSecurity(),
        parameters: [pathParameter('runId')],
        requestBody: { required: false, content: json(ref('Cancel')) },
        responses: {
          '200': { description: 'The run.', content: json(ref('RunAnswer')) },
          ...errors(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
    '/events': {
      get: {
        operationId: 'events',
        summary:
          'Server-sent events: approval-requested, approval-resolved, tool-finished, run-completed, run-failed, run-cancelled, model-delta (data: the event as JSON).',
        security: readSecurity(),
        parameters: queryParameters(eventsQuery),
        responses: {
          '200': {
            description: 'An event stream with heartbeat comments.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errors(400, 401),
        },
      },
    },
  };
}

/** One-click links, and an agent's tools (to check an edit). */
function linkPaths() {
  return {
    '/links/{token}': {
      get: {
        operationId: 'linkPage',
        summary: 'Confirmation page of a one-click link; changes nothing. The token authenticates itself.',
        security: [],
        parameters: [pathParameter('token')],
        responses: {
          '200': {
            description: 'The page, with a form that POSTs the decision.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '401': {
            description: 'Forged or malformed token.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '410': {
            description: 'Expired token, or the approval is no longer pending.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
      post: {
        operationId: 'linkDecide',
        summary: 'Spend a one-click link token (once) and record its decision.',
        security: [],
        parameters: [pathParameter('token')],
        responses: {
          '200': { description: 'Result page.', content: { 'text/html': { schema: { type: 'string' } } } },
          '401': {
            description: 'Forged or malformed token.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '409': {
            description: 'Already decided otherwise, or the run no longer waits.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '410': {
            description: 'Token used or expired, or the approval expired.',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    '/agents/{agent}/tools': {
      get: {
        operationId: 'listAgentTools',
        summary:
          "An agent's tools as the model sees them: name, description and the JSON Schema of the input (to check an edit before sending it).",
        security: readSecurity(),
        parameters: [pathParameter('agent')],
        responses: {
          '200': { description: '`{ agent, tools: [{ name, description, parameters }] }`' },
          ...errors(401, 404),
        },
      },
    },
  };
}

/** Stored rules, and what anyone may read about the service. */
function rulePaths() {
  return {
    '/rules': {
      get: {
        operationId: 'listRules',
        summary:
          'The stored rules (only when the app was given `rules`). Among matching rules deny beats ask beats allow; rules decide before the tool does.',
        security: readSecurity(),
        responses: { '200': { description: '`{ items: StoredRule[] }`' }, ...errors(401, 404) },
      },
      post: {
        operationId: 'addRule',
        summary: 'Add a stored rule; it applies from the next call of every run.',
        security: writeSecurity(),
        requestBody: { required: true, content: json(ref('NewRule')) },
        responses: {
          '201': { description: '`{ rule }`: the rule with its id, createdAt and enabled.' },
          ...errors(400, 401, 404, 413, 415),
        },
      },
    },
    '/rules/{ruleId}': {
      post: {
        operationId: 'setRuleEnabled',
        summary:
          'Enable or disable a stored rule (a disabled rule is kept and matches nothing), or put it in shadow mode (it never decides; a request it would have allowed records it) or let it act.',
        security: writeSecurity(),
        parameters: [pathParameter('ruleId')],
        requestBody: { required: true, content: json(ref('RuleState')) },
        responses: { '200': { description: '`{ rule }`' }, ...errors(400, 401, 404, 413, 415) },
      },
      delete: {
        operationId: 'removeRule',
        summary: 'Remove a stored rule.',
        security: writeSecurity(),
        parameters: [pathParameter('ruleId')],
        requestBody: { required: false, content: json(ref('RemoveRule')) },
        responses: { '200': { description: '`{ removed: true, ruleId }`' }, ...errors(400, 401, 404, 413, 415) },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document.',
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1.' } },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'receiptKeys',
        summary: 'The public keys (JWKS) decision receipts are checked with; 404 when the runtime signs none.',
        security: [],
        responses: {
          '200': { description: 'A JSON Web Key Set of Ed25519 keys, the current one first.' },
          '404': { description: 'The runtime was made without `receipts`.' },
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        summary: 'Liveness.',
        security: [],
        responses: { '200': { description: '`{ "ok": true }`' } },
      },
    },
  };
}

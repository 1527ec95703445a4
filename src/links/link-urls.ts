// Where the approval app (countersign/http) serves one-click links and inboxes. A channel that sends URLs
// (email) builds them here from the app's public base URL; the runtime itself only mints tokens.

/**
 * The URL of a one-click link page: `${baseUrl}/links/<token>`, as `createApprovalApp` serves it.
 *
 * @example
 * const { approve } = await runtime.linkTokens(runId, approvalId);
 * const url = approvalLinkUrl('https://approvals.example.com', approve);
 */
export function approvalLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/links/${token}`;
}

/**
 * The URL of a reviewer's inbox: `${baseUrl}/inbox/<token>`, as `createApprovalApp` serves it.
 *
 * @example
 * const { token } = await runtime.inboxToken('alice@example.com');
 * const url = inboxUrl('https://approvals.example.com', token);
 */
export function inboxUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/inbox/${token}`;
}

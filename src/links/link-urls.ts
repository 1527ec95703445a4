// Where the approval app (countersign/http) serves one-click links and inboxes. A channel that sends URLs
// (email) builds them here from the app's public base URL; the runtime itself only mints tokens.

/** `baseUrl` without trailing slashes, cut by index: `/\/+$/` would cost the square of a long run of slashes. */
function withoutTrailingSlashes(baseUrl: string): string {
  let end = baseUrl.length;
  while (end > 0 && baseUrl.charCodeAt(end - 1) === 0x2f) end--;
  return baseUrl.slice(0, end);
}

/**
 * The URL of a one-click link page: `${baseUrl}/links/<token>`, as `createApprovalApp` serves it.
 *
 * @example
 * const { approve } = await runtime.linkTokens(runId, approvalId);
 * const url = approve === undefined ? undefined : approvalLinkUrl('https://approvals.example.com', approve);
 */
export function approvalLinkUrl(baseUrl: string, token: string): string {
  return `${withoutTrailingSlashes(baseUrl)}/links/${token}`;
}

/**
 * The URL of a reviewer's inbox: `${baseUrl}/inbox/<token>`, as `createApprovalApp` serves it.
 *
 * @example
 * const { token } = await runtime.inboxToken('alice@example.com');
 * const url = inboxUrl('https://approvals.example.com', token);
 */
export function inboxUrl(baseUrl: string, token: string): string {
  return `${withoutTrailingSlashes(baseUrl)}/inbox/${token}`;
}

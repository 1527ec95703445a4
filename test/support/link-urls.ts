// The URLs a person would be sent, built the way an app builds them: tokens from the runtime, routes from the app.
import { approvalLinkUrl, inboxUrl, type LinkedRuntime } from 'countersign';

export const TEST_BASE_URL = 'https://approvals.example.com';

/** Approve, approve-for-the-run and deny URLs of one pending approval. */
export async function linkUrls(
  runtime: LinkedRuntime,
  runId: string,
  approvalId: string,
  options: { expiresIn?: number; approvedBy?: string } = {},
  baseUrl = TEST_BASE_URL,
) {
  const tokens = await runtime.linkTokens(runId, approvalId, options);
  return {
    approve: approvalLinkUrl(baseUrl, tokens.approve!),
    approveForRun: approvalLinkUrl(baseUrl, tokens.approveForRun!),
    deny: approvalLinkUrl(baseUrl, tokens.deny!),
    expiresAt: tokens.expiresAt,
  };
}

/** A reviewer's inbox URL. */
export async function inboxLinkUrl(
  runtime: LinkedRuntime,
  reviewer: string,
  options: { expiresIn?: number } = {},
  baseUrl = TEST_BASE_URL,
) {
  const { token, expiresAt } = await runtime.inboxToken(reviewer, options);
  return { url: inboxUrl(baseUrl, token), expiresAt };
}

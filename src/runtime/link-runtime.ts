// The link half of a runtime: minting the tokens of a pending approval, spending one once, and a reviewer's
// inbox. Added to a runtime made with `links`, so a runtime without them has none of these methods.
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, LinkTokenError, UnknownApprovalError } from '../errors.js';
import { createApprovalLinks, type ApprovalLinkOptions } from '../links/link-service.js';
import { parseOptions } from '../options.js';
import type { ListPendingOptions } from '../ports/snapshot-store.js';
import type { Answer } from '../run/question.js';
import type { LinkedRuntime, RespondMode, Runtime } from './runtime.js';
import { decideAndResume, type DecideParts } from './decide-and-resume.js';
import { listsPerson } from '../decisions/authority/person-name.js';
import { approversNow } from '../decisions/authority/who-may-decide.js';

const DAY_MS = 86_400_000;
const INBOX_MS = 8 * 3_600_000;
const tokenSchema = z.string().max(4096);
const reasonSchema = z.string().min(1).max(2000);
const reviewerSchema = z.string().min(1).max(256);
const expiresInSchema = z.number().int().positive();

const parse = <T>(schema: z.ZodType<T>, value: unknown, where: string): T =>
  parseOptions(schema, value, where, { subject: 'argument' });

/** What the link methods share: the runtime they decide through, the sealed-token service and its clock. */
interface LinkContext {
  readonly runtime: Runtime;
  readonly links: ReturnType<typeof createApprovalLinks>;
  readonly clock: () => number;
  readonly defaultTtl: number;
}

/** `runtime` with the link methods, on tokens sealed with `options.secret`. */
export function withLinks(
  runtime: Runtime,
  options: ApprovalLinkOptions & { readonly clock: () => number },
  decideParts: DecideParts,
): LinkedRuntime {
  const { clock } = options;
  const links = createApprovalLinks({ secret: options.secret, clock });
  const context: LinkContext = { runtime, links, clock, defaultTtl: options.expiresInMs ?? DAY_MS };
  return {
    ...runtime,
    links,
    linkTokens: (runId, approvalId, linkOptions = {}) => linkTokens(context, runId, approvalId, linkOptions),
    respondWithLink: (token, linkOptions = {}) => respondWithLink(context, token, linkOptions),
    decideWithLink: (token, decideOptions = {}) => {
      const { approvedBy, reason, answer } = decideOptions;
      const who = {
        ...(approvedBy === undefined ? {} : { approvedBy }),
        ...(reason === undefined ? {} : { reason }),
        ...(answer === undefined ? {} : { answer }),
      };
      return decideAndResume(
        decideParts,
        (mode) => respondWithLink(context, token, { mode, ...who }),
        decideOptions,
        'decideWithLink',
      );
    },
    async inspectLink(token) {
      const claim = links.verify(parse(tokenSchema, token, 'inspectLink: token'));
      return { claim, snapshot: await runtime.get(claim.runId) };
    },
    async inboxToken(reviewer, inboxOptions = {}) {
      parse(reviewerSchema, reviewer, 'inboxToken: reviewer');
      const expiresAt = clock() + parse(expiresInSchema, inboxOptions.expiresIn ?? INBOX_MS, 'inboxToken: expiresIn');
      return { token: links.mintInbox({ reviewer, expiresAt }), expiresAt };
    },
    reviewInbox: (token, listOptions = {}) => reviewInbox(context, token, listOptions),
  };
}

/** The tokens of one pending approval, expiring with it at the latest. */
async function linkTokens(
  { runtime, links, clock, defaultTtl }: LinkContext,
  runId: string,
  approvalId: string,
  linkOptions: NonNullable<Parameters<LinkedRuntime['linkTokens']>[2]>,
): ReturnType<LinkedRuntime['linkTokens']> {
  const snapshot = await runtime.get(runId);
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === approvalId);
  if (!request) {
    throw new UnknownApprovalError(
      runId,
      approvalId,
      snapshot.pendingApprovals.map((item) => item.approvalId),
    );
  }
  const expiresIn = parse(expiresInSchema, linkOptions.expiresIn ?? defaultTtl, 'linkTokens: expiresIn');
  return links.mint({
    runId,
    approvalId,
    expiresAt: Math.min(clock() + expiresIn, request.expiresAt ?? Number.POSITIVE_INFINITY),
    ...(snapshot.sessionId === undefined ? {} : { sessionId: snapshot.sessionId }),
    ...(request.decisions === undefined ? {} : { decisions: request.decisions }),
    ...(linkOptions.approvedBy === undefined ? {} : { approvedBy: linkOptions.approvedBy }),
  });
}

/** Decides with a token: the decision it was minted for, recorded once, the token spent once the decision is. */
async function respondWithLink(
  { runtime, links, clock }: LinkContext,
  token: string,
  linkOptions: NonNullable<Parameters<LinkedRuntime['respondWithLink']>[1]>,
): ReturnType<LinkedRuntime['respondWithLink']> {
  const {
    approvedBy: caller,
    reason,
    answer,
    ...modeOptions
  } = linkOptions as { mode?: RespondMode; approvedBy?: string; reason?: string; answer?: Answer };
  const claim = links.verify(parse(tokenSchema, token, 'respondWithLink: token'));
  if (reason !== undefined) parse(reasonSchema, reason, 'respondWithLink: reason');
  const snapshot = await runtime.get(claim.runId);
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
  // The token is sealed to this approval, so it stands in for the echo of the request's signature.
  const result = await runtime.respond(
    claim.runId,
    {
      approvalId: claim.approvalId,
      approved: claim.decision === 'approve',
      // Who the link was minted for wins over who the caller says clicked it.
      approvedBy: claim.approvedBy ?? caller ?? `link:${claim.decision}`,
      ...(claim.scope === undefined ? {} : { scope: claim.scope }),
      ...(request?.signature === undefined ? {} : { signature: request.signature }),
      ...(claim.decision === 'deny' ? { reason: reason ?? 'denied from an approval link' } : {}),
      // Checked against the request's form where it is recorded (a deny or wider token with an answer is refused there).
      ...(answer === undefined ? {} : { answer }),
    },
    modeOptions,
  );
  // Spent only once the decision is recorded, so a store outage does not burn the link; a second use that decided nothing is refused.
  const tokenId = createHash('sha256').update(token).digest('base64url');
  // The spend's own value (when, and a random id): a resend after a lost reply finds it and counts as this spend.
  const spentBefore =
    (await runtime.once.putIfAbsent(
      `link:${tokenId}`,
      `${clock()}:${randomUUID()}`,
      Math.max(claim.expiresAt - clock(), 1000),
    )) !== undefined;
  if (spentBefore && result.duplicate) throw new LinkTokenError('used', claim);
  return { ...result, runId: claim.runId, approvalId: claim.approvalId };
}

/** A reviewer's inbox: the pending approvals, each with tokens minted for the reviewer and whether they may decide it. */
async function reviewInbox(
  { runtime, links }: LinkContext,
  token: string,
  listOptions: ListPendingOptions,
): ReturnType<LinkedRuntime['reviewInbox']> {
  const claim = links.verifyInbox(parse(tokenSchema, token, 'reviewInbox: token'));
  // `pending` checks the options.
  const page = await runtime.pending(listOptions);
  // Each item's tokens come from the listing alone (no load per run); a decision checks everything again.
  const items = page.items.map((item) => ({
    ...item,
    mayDecide: listsPerson(approversNow(item.request) ?? [claim.reviewer], claim.reviewer),
    tokens: links.mint({
      runId: item.runId,
      approvalId: item.request.approvalId,
      expiresAt: Math.min(claim.expiresAt, item.request.expiresAt ?? Number.POSITIVE_INFINITY),
      approvedBy: claim.reviewer,
      ...(item.sessionId === undefined ? {} : { sessionId: item.sessionId }),
      ...(item.request.decisions === undefined ? {} : { decisions: item.request.decisions }),
    }),
  }));
  return {
    reviewer: claim.reviewer,
    expiresAt: claim.expiresAt,
    items,
    ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
  };
}

/** True for a runtime made with `links`. */
export function isLinkedRuntime(runtime: Runtime): runtime is LinkedRuntime {
  return typeof (runtime as Partial<LinkedRuntime>).linkTokens === 'function';
}

/** `runtime` as a `LinkedRuntime`, or a `ConfigError` (`links_not_configured`) saying what `where` needs them for. */
export function requireLinks(runtime: Runtime, where: string): LinkedRuntime {
  if (isLinkedRuntime(runtime)) return runtime;
  throw new ConfigError(
    `${where} needs one-click tokens; create the runtime with createRuntime({ agents, store, links: { secret } }).`,
    'links_not_configured',
  );
}

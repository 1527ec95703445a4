import { Hono } from 'hono';
import {
  claimOffered,
  decideWithLink,
  requireLinks,
  decidedReply,
  refusalReply,
  settledText,
} from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { confirmationPage, messagePage } from '../link-pages.js';
import { linkFailure, linkPage, linkToken, pageMarkup } from './link-answers.js';
import type { RouteSettings } from './route-settings.js';

/**
 * `GET /links/:token` (a confirmation page that changes nothing, so a link scanner decides nothing) and
 * `POST /links/:token` (the decision); the token is the credential.
 */
export function linkRoutes({ runtime, resumeMode, resumeTimeoutMs, report }: RouteSettings): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/links/:token', async (c) => {
    try {
      const token = linkToken(c);
      const { claim, snapshot } = await requireLinks(runtime, 'GET /links').inspectLink(token);
      const request = snapshot.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
      if (!request || snapshot.status !== 'awaitingApproval') {
        const decided = snapshot.audit.find((entry) => entry.approvalId === claim.approvalId);
        return linkPage(
          c,
          410,
          messagePage(
            'Nothing left to decide',
            decided
              ? settledText(decided, pageMarkup)
              : `Run ${snapshot.runId} is ${snapshot.status}; this approval is no longer pending.`,
          ),
        );
      }
      // A token minted without the request's decisions (links.mint) may claim one it does not offer: no form for it.
      if (!claimOffered(request, claim)) {
        const refusal = refusalReply({ kind: 'not_offered' }, 'You', 'links', pageMarkup).text;
        return linkPage(c, 403, messagePage('This approval cannot be decided', refusal));
      }
      return linkPage(
        c,
        200,
        confirmationPage({
          claim,
          request,
          action: `./${token}`,
          ...(snapshot.sessionId === undefined ? {} : { sessionId: snapshot.sessionId }),
          ...(snapshot.requestedBy === undefined ? {} : { requestedBy: snapshot.requestedBy }),
        }),
      );
    } catch (error) {
      return linkFailure(c, error, { report, runtime });
    }
  });

  app.post('/links/:token', async (c) => {
    try {
      const token = linkToken(c);
      const { result, carryingOn } = await decideWithLink(requireLinks(runtime, 'POST /links'), token, {
        resumeMode,
        resumeTimeoutMs,
        onLateError: (error, runId) => report(error, { operation: 'resume', runId }),
      });
      if (carryingOn)
        return linkPage(c, 202, messagePage('Decision recorded', 'The agent is carrying on; you can close this page.'));
      const entry = result.snapshot.audit.find((item) => item.approvalId === result.approvalId);
      // On a quorum request still short of approvals the click was a vote, not the decision.
      const voted = result.vote !== undefined && result.vote.remaining > 0;
      const verb = voted ? 'Vote recorded' : entry?.decision === 'denied' ? 'Denied' : 'Approved';
      const said = decidedReply(result, false, entry?.by ?? 'you', pageMarkup).text;
      return linkPage(
        c,
        200,
        messagePage(result.duplicate && !voted ? 'Already recorded' : verb, `${said} You can close this page.`),
      );
    } catch (error) {
      return linkFailure(c, error, { report, runtime });
    }
  });

  return app;
}

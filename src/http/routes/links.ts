import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AgentSnapshot, Answer, LinkClaim } from '../../index.js';
import {
  claimOffered,
  decideWithLink,
  requireLinks,
  decidedReply,
  refusalReply,
  settledText,
  formAnswerEntries,
  readAnswer,
  readRawBody,
} from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { confirmationPage, messagePage } from '../link-pages.js';
import { typedValues } from '../question-form.js';
import { questionPage } from '../question-page.js';
import { linkFailure, linkPage, linkToken, pageMarkup } from './link-answers.js';
import type { RouteSettings } from './route-settings.js';

/** The pending request a link names, when its run still waits for it. */
const pendingOf = (claim: LinkClaim, snapshot: AgentSnapshot) =>
  snapshot.status === 'awaitingApproval'
    ? snapshot.pendingApprovals.find((item) => item.approvalId === claim.approvalId)
    : undefined;

/** A wider approve link cannot answer a question (an answer is for that question only). */
const widerOnQuestion = (c: Context<AppEnv>) =>
  linkPage(
    c,
    400,
    messagePage(
      'This link cannot answer a question',
      'It approves more than one call, and an answer is for this question only; open the Answer link instead.',
    ),
  );

/**
 * `GET /links/:token` (a confirmation page, or a question's form, that changes nothing, so a link scanner decides
 * nothing) and `POST /links/:token` (the decision, or the answer: read from the form, checked against the question,
 * the page shown again with each field's problem when it does not fit, the token spent only once one is recorded);
 * the token is the credential.
 */
export function linkRoutes(settings: RouteSettings, own: { readonly maxBodyBytes: number }): Hono<AppEnv> {
  const { runtime, report } = settings;
  const app = new Hono<AppEnv>();

  app.get('/links/:token', async (c) => {
    try {
      const token = linkToken(c);
      const { claim, snapshot } = await requireLinks(runtime, 'GET /links').inspectLink(token);
      const request = pendingOf(claim, snapshot);
      if (!request) {
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
      const { question } = request;
      if (question !== undefined && claim.decision === 'approve') {
        if (claim.scope !== undefined) return widerOnQuestion(c);
        return linkPage(
          c,
          200,
          questionPage({ claim, request, question, agentName: snapshot.agentName, action: `./${token}` }),
        );
      }
      return linkPage(
        c,
        200,
        confirmationPage({
          claim,
          request,
          agentName: snapshot.agentName,
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
      const asked = await answerOfPost(c, settings, token, own.maxBodyBytes);
      if (asked instanceof Response) return asked;
      return await decideLink(c, settings, token, asked);
    } catch (error) {
      return linkFailure(c, error, { report, runtime });
    }
  });

  return app;
}

/**
 * The answer a POST on a question's approve link carries (undefined on any other link, or once the question is no
 * longer pending: deciding then says why), or the page to answer with instead: the form again with each field's
 * problem (422, nothing recorded, the token not spent), or the refusal of a wider link.
 */
async function answerOfPost(
  c: Context<AppEnv>,
  { runtime }: RouteSettings,
  token: string,
  maxBodyBytes: number,
): Promise<Answer | Response | undefined> {
  const form = new URLSearchParams(await readRawBody(c.req.raw, maxBodyBytes));
  // Only the question page's form says it answers: any other post decides as it always did, with no extra read.
  if (form.get('form') !== 'answer') return undefined;
  const { claim, snapshot } = await requireLinks(runtime, 'POST /links').inspectLink(token);
  const request = pendingOf(claim, snapshot);
  const question = request?.question;
  if (request === undefined || question === undefined || claim.decision !== 'approve') return undefined;
  if (claim.scope !== undefined) return widerOnQuestion(c);
  const entries = formAnswerEntries(form);
  const { answer, issues } = readAnswer(question, entries);
  if (issues.length === 0) return answer;
  const state = { values: typedValues(entries), issues };
  return linkPage(
    c,
    422,
    questionPage({ claim, request, question, agentName: snapshot.agentName, action: `./${token}`, state }),
  );
}

/** Spends the link's token with its decision (and answer) and tells how it went. */
async function decideLink(
  c: Context<AppEnv>,
  { runtime, resumeMode, resumeTimeoutMs, report }: RouteSettings,
  token: string,
  answer: Answer | undefined,
): Promise<Response> {
  const { result, carryingOn } = await decideWithLink(requireLinks(runtime, 'POST /links'), token, {
    resumeMode,
    resumeTimeoutMs,
    onLateError: (error, runId) => report(error, { operation: 'resume', runId }),
    ...(answer === undefined ? {} : { answer }),
  });
  const what = answer === undefined ? 'Decision' : 'Answer';
  if (carryingOn)
    return linkPage(c, 202, messagePage(`${what} recorded`, 'The agent is carrying on; you can close this page.'));
  const entry = result.snapshot.audit.find((item) => item.approvalId === result.approvalId);
  // On a quorum request still short of approvals the click was a vote, not the decision.
  const voted = result.vote !== undefined && result.vote.remaining > 0;
  const verb = voted
    ? 'Vote recorded'
    : answer !== undefined
      ? 'Answered'
      : entry?.decision === 'denied'
        ? 'Denied'
        : 'Approved';
  const said = decidedReply(result, false, entry?.by ?? 'you', pageMarkup, answer !== undefined).text;
  return linkPage(
    c,
    200,
    messagePage(result.duplicate && !voted ? 'Already recorded' : verb, `${said} You can close this page.`),
  );
}

// The route Slack posts interactions to (the app's interactivity request URL): button clicks on a card and the deny
// modal's submissions. Signed requests only, checked before the body is parsed; answered 200 at once, decided in the
// background, and the clicker told through the payload's response_url.
import { z } from 'zod';
import {
  isCountersignError,
  type Answer as AnswerValues,
  type ApprovalRequest,
  type LinkedRuntime,
  type ResumeMode,
} from '../../index.js';
import {
  type ChannelRoute,
  answerClick,
  linkRun,
  parseOptions,
  HttpProblem,
  problem,
  problemFor,
  problemResponse,
  parseJsonBody,
  parseWith,
  readRawBody,
  tooLarge,
  resumeModeOf,
  readAnswer,
} from '../../kit/index.js';
import { ANSWER_MODAL_ID, answerErrors, answerModal, answerSubmissionView, submittedEntries } from './answer-modal.js';
import {
  denyModal,
  denySubmissionView,
  DENY_MODAL_ID,
  modalContext,
  readDenySubmission,
  type DenyContext,
} from './deny-modal.js';
import { callSlack, DEFAULT_API_URL, type SlackApi } from './slack-api.js';
import { DECISION_BLOCK_IDS, SLACK_ACTION_IDS } from './slack-card.js';
import { slackMarkup } from './slack-markup.js';
import { respond, type Answer, type ResponderSettings } from './slack-responder.js';
import { signedHeaders, verifySignature } from './slack-signature.js';
import { type SlackActionsErrorContext, type SlackActionsOptions, optionsSchema } from './slack-actions-options.js';

/** The reason recorded for a Deny without one. */
const DEFAULT_REASON = 'denied in Slack';

const slackUser = z.looseObject({ id: z.string().regex(/^[A-Z0-9]{1,64}$/, 'must be a Slack user id') });
const kindSchema = z.looseObject({ type: z.string().max(64) });
const blockActionsSchema = z.looseObject({
  user: slackUser,
  trigger_id: z.string().max(256).optional(),
  response_url: z.string().max(2048).optional(),
  actions: z
    .array(
      z.looseObject({
        action_id: z.string().max(255),
        block_id: z.string().max(255).optional(),
        value: z.string().max(4096).optional(),
      }),
    )
    .max(25),
  message: z
    .looseObject({
      blocks: z
        .array(z.looseObject({ type: z.string().max(64) }))
        .max(100)
        .optional(),
    })
    .optional(),
});
const viewSubmissionSchema = z.looseObject({
  user: slackUser,
  view: z.looseObject({ callback_id: z.string().max(255).optional() }),
});

/** What a signed interaction asks for: background work (a decision, a modal), and the body Slack wants back, if any. */
interface Handled {
  readonly work?: Promise<void> | undefined;
  readonly reply?: Readonly<Record<string, unknown>>;
}

/** A click on one of the card's buttons, as far as deciding it and answering goes. */
interface Click extends DenyContext {
  readonly user: string;
  /** The card's blocks but its buttons, to keep when the answer replaces it. */
  readonly kept?: readonly unknown[] | undefined;
}

/**
 * The route Slack posts interactions to: mount it at the Slack app's
 * interactivity request URL (`/slack/actions`). It verifies Slack's signature
 * (v0, ±300 s, constant time) before reading the payload, answers 200 at once
 * and decides in the background, as `slack:<user id>`: Approve and Approve for
 * this run spend the button's one-click token; Deny opens a modal asking why
 * when `token` is given (else it denies at once, "denied in Slack"). On a question's card, Answer opens its form in a
 * modal (`token` needed), checked on submission (a refused answer stays in the modal, each problem under its field)
 * and recorded with the approve token; Decline denies. The answer
 * goes to the payload's `response_url` (allowed origins only, no redirects):
 * it replaces a webhook's card, and is shown to the clicker alone on a bot's
 * card, which the notifier edits in place.
 *
 * @example
 * import { createSlackActions } from 'countersign/slack';
 *
 * const slackActions = createSlackActions({ runtime, signingSecret: process.env.SLACK_SIGNING_SECRET!, token: process.env.SLACK_BOT_TOKEN! });
 * app.post(slackActions.path, (c) => slackActions.fetch(c.req.raw)); // Hono; any Fetch-standard server works
 */
export function createSlackActions(options: SlackActionsOptions): ChannelRoute {
  parseOptions(optionsSchema, options, 'createSlackActions');
  const interactions = new SlackInteractions(options);
  const secrets: readonly string[] =
    typeof options.signingSecret === 'string' ? [options.signingSecret] : options.signingSecret;
  const clock = options.clock ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024;
  return {
    method: 'POST',
    path: '/slack/actions',
    async fetch(request, context) {
      try {
        const headers = signedHeaders(request, Math.floor(clock() / 1000));
        if (Number(request.headers.get('content-length') ?? 0) > maxBodyBytes) throw tooLarge(maxBodyBytes);
        const raw = await readRawBody(request, maxBodyBytes);
        verifySignature(secrets, headers, raw);
        const handled = await interactions.handle(raw);
        const work = handled.work?.catch((error: unknown) => interactions.report(error, { operation: 'request' }));
        // Serverless platforms keep the function alive for the background work; Node stays up anyway.
        if (work !== undefined) context?.waitUntil?.(work);
        // An empty 200 within Slack's 3 s is all it wants (and closes a submitted modal); a refused answer keeps the
        // modal open with its errors.
        return handled.reply === undefined ? new Response(null, { status: 200 }) : Response.json(handled.reply);
      } catch (error) {
        const answer = problemFor(error);
        if (answer.unexpected) interactions.report(error, { operation: 'request' });
        return problemResponse(answer.problem, answer.headers);
      }
    },
  };
}

const OUR_ACTIONS = new Set<string>(Object.values(SLACK_ACTION_IDS));

const notOurs = (form: 'deny' | 'answer') =>
  new HttpProblem(problem(400, 'invalid_body', `The ${form} form's private_metadata is not the one countersign set.`));

/** What a signed interaction asks for, done in the background: a click decided, a modal opened, the clicker told. */
class SlackInteractions {
  readonly #options: SlackActionsOptions;
  readonly #resumeMode: ResumeMode;
  readonly #responder: ResponderSettings;
  readonly #api: SlackApi | undefined;

  constructor(options: SlackActionsOptions) {
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.#options = options;
    this.#resumeMode = resumeModeOf(options.resumeMode, options.runtime, 'createSlackActions');
    this.#responder = {
      origins: new Set(
        (options.responseUrlOrigins ?? ['https://hooks.slack.com']).map((origin) => new URL(origin).origin),
      ),
      fetch: fetchImpl,
      timeoutMs: 10_000,
    };
    this.#api =
      options.token === undefined
        ? undefined
        : { apiUrl: options.apiUrl ?? DEFAULT_API_URL, token: options.token, fetch: fetchImpl, timeoutMs: 10_000 };
  }

  /** What a signed interaction asks for: nothing for one that is not ours. */
  async handle(raw: string): Promise<Handled> {
    const form = new URLSearchParams(raw).get('payload');
    if (form === null)
      throw new HttpProblem(
        problem(
          400,
          'invalid_body',
          'The body has no payload field; Slack sends application/x-www-form-urlencoded with payload=<JSON>.',
        ),
      );
    const payload = parseJsonBody(kindSchema, form);
    if (payload.type === 'block_actions')
      return { work: this.#clicked(parseWith(blockActionsSchema, payload, 'body')) };
    if (payload.type !== 'view_submission') return {};
    const submitted = parseWith(viewSubmissionSchema, payload, 'body');
    if (submitted.view.callback_id === ANSWER_MODAL_ID)
      return this.#answered(submitted.user.id, parseWith(answerSubmissionView, submitted.view, 'body'));
    return { work: this.#submitted(submitted.user.id, parseWith(denySubmissionView, submitted.view, 'body')) };
  }

  report(error: unknown, context: SlackActionsErrorContext): void {
    try {
      this.#options.onError?.(error, context);
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  }

  #clicked(clicked: z.infer<typeof blockActionsSchema>): Promise<void> | undefined {
    const action = clicked.actions.find((item) => OUR_ACTIONS.has(item.action_id));
    // Other apps' buttons are acknowledged and left alone.
    if (action === undefined) return undefined;
    if (action.value === undefined)
      throw new HttpProblem(problem(400, 'invalid_body', "A block_actions payload needs the action's value."));
    const click: Click = {
      token: action.value,
      user: clicked.user.id,
      updated: action.block_id === DECISION_BLOCK_IDS.updated,
      kept: clicked.message?.blocks?.filter((block) => block.type !== 'actions'),
      ...(clicked.response_url === undefined ? {} : { responseUrl: clicked.response_url }),
    };
    if (action.action_id === SLACK_ACTION_IDS.answer) return this.#askAnswer(click, clicked.trigger_id);
    if (action.action_id !== SLACK_ACTION_IDS.deny) return this.#decide(click, undefined);
    return this.#api === undefined ? this.#decide(click, DEFAULT_REASON) : this.#askWhy(click, clicked.trigger_id);
  }

  #submitted(user: string, view: z.output<typeof denySubmissionView>): Promise<void> | undefined {
    if (view.callback_id !== DENY_MODAL_ID) return undefined;
    const read = readDenySubmission(view);
    if (read === undefined) throw notOurs('deny');
    return this.#decide({ ...read.context, user }, read.reason ?? DEFAULT_REASON);
  }

  /**
   * A submitted answer modal, read and checked against the question while Slack waits: a refused answer goes back as
   * the modal's errors (nothing recorded), a good one closes it and is decided in the background. A question no
   * longer pending is decided as it stands (saying why nothing was done); a request that asks nothing is not answered.
   */
  async #answered(user: string, view: z.output<typeof answerSubmissionView>): Promise<Handled> {
    const context = modalContext(view.private_metadata);
    if (context === undefined) throw notOurs('answer');
    const click: Click = { ...context, user };
    const asked = await this.#pendingOf(context.token);
    if (asked?.question === undefined)
      return {
        work:
          asked === undefined
            ? this.#decide(click, undefined)
            : this.#tell(click, { text: 'This approval asks no question; nothing was done.', replace: false }),
      };
    const { answer, issues } = readAnswer(asked.question, submittedEntries(view));
    if (issues.length > 0) return { reply: answerErrors(asked.question, issues) };
    return { work: this.#decide(click, undefined, answer) };
  }

  /** The pending request `token` decides, or undefined when it is no longer pending (or the token does not open). */
  async #pendingOf(token: string): Promise<ApprovalRequest | undefined> {
    let found: Awaited<ReturnType<LinkedRuntime['inspectLink']>>;
    try {
      found = await this.#options.runtime.inspectLink(token);
    } catch (error) {
      if (isCountersignError(error) && error.code === 'invalid_link_token') return undefined;
      throw error;
    }
    const { claim, snapshot } = found;
    return snapshot.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
  }

  /** Answer on a question's card: its form in a modal (the bot token opens it), or why it cannot be opened. */
  async #askAnswer(click: Click, triggerId: string | undefined): Promise<void> {
    const request = await this.#pendingOf(click.token);
    // Decided, expired or gone: deciding says which.
    if (request?.question === undefined) return this.#decide(click, undefined);
    const view = answerModal(request, request.question, {
      token: click.token,
      updated: click.updated,
      ...(click.responseUrl === undefined ? {} : { responseUrl: click.responseUrl }),
    });
    if (this.#api === undefined || triggerId === undefined || view === undefined)
      return this.#tell(click, {
        text: 'This question is answered in a form Slack opens only for an app with its bot token (createSlackActions({ token })); answer it in the approval console instead.',
        replace: false,
      });
    try {
      await callSlack(this.#api, 'views.open', { trigger_id: triggerId, view });
    } catch (error) {
      await this.#reportAbout(error, 'modal', click.token);
      await this.#tell(click, {
        text: 'The form could not be opened; nothing was done. Click Answer again.',
        replace: false,
      });
    }
  }

  /** Reports a failure about the click on `token`, naming its run when the runtime can tell (only it can open a token). */
  async #reportAbout(error: unknown, operation: SlackActionsErrorContext['operation'], token: string): Promise<void> {
    const { runId } = await linkRun(this.#options.runtime, token);
    this.report(error, { operation, ...(runId === undefined ? {} : { runId }) });
  }

  async #tell(click: Click, reply: Answer['reply']): Promise<void> {
    if (click.responseUrl === undefined) return;
    // A bot's card is edited in place by the notifier; an answer replacing it could land after that edit.
    const answer: Answer = { reply: { text: reply.text, replace: reply.replace && !click.updated }, kept: click.kept };
    await respond(this.#responder, click.responseUrl, answer).catch((error: unknown) =>
      this.#reportAbout(error, 'response', click.token),
    );
  }

  async #decide(click: Click, reason: string | undefined, answer?: AnswerValues): Promise<void> {
    const reply = await answerClick(this.#options.runtime, {
      ...(answer === undefined ? {} : { answer }),
      token: click.token,
      clicker: `slack:${click.user}`,
      channel: 'Slack',
      markup: slackMarkup,
      resumeMode: this.#resumeMode,
      resumeTimeoutMs: this.#options.resumeTimeoutMs ?? 10_000,
      ...(reason === undefined ? {} : { reason }),
      onError: (error, context) => this.report(error, context),
    });
    await this.#tell(click, reply);
  }

  async #askWhy(click: Click, triggerId: string | undefined): Promise<void> {
    const view = denyModal({
      token: click.token,
      updated: click.updated,
      ...(click.responseUrl === undefined ? {} : { responseUrl: click.responseUrl }),
    });
    if (this.#api === undefined || triggerId === undefined || view === undefined)
      return this.#decide(click, DEFAULT_REASON);
    try {
      await callSlack(this.#api, 'views.open', { trigger_id: triggerId, view });
    } catch (error) {
      await this.#reportAbout(error, 'modal', click.token);
      await this.#tell(click, {
        text: 'The form asking why could not be opened; nothing was done. Click Deny again.',
        replace: false,
      });
    }
  }
}

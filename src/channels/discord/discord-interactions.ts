// Discord's interactions endpoint: every request signed by Discord (Ed25519), a PING answered, and a click on one of
// our buttons decided. Discord wants an answer within 3 s, so a decision is acknowledged at once (type 6) and made in
// the background, then the card is edited (or the clicker told privately); Deny first asks for a reason in a modal.
import { z } from 'zod';
import { tokenOfButton } from '../button-ids.js';
import type { Answer, ApprovalRequest, LinkClaim, LinkedRuntime, Question, ResumeMode } from '../../index.js';
import {
  type ChannelRoute,
  answerClick,
  refusalReply,
  type ClickReply,
  functionSchema,
  publicError,
  httpUrlSchema,
  optionsObject,
  parseOptions,
  HttpProblem,
  problem,
  problemFor,
  problemResponse,
  parseJsonBody,
  readRawBody,
  tooLarge,
  answerOptionsShape,
  resumeModeOf,
  answerRefusal,
  readAnswer,
} from '../../kit/index.js';
import { linkedRuntimeSchema } from '../channel-options.js';
import { ConfigError } from '../../errors.js';
import { DISCORD_API_URL, discordApi, SNOWFLAKE_PATTERN } from './discord-api.js';
import { CUSTOM_ID_PREFIX, NO_MENTIONS } from './discord-card.js';
import { discordMarkup } from './discord-markup.js';
import { fitsModal, modalEntries, questionModal } from './discord-question.js';
import { ed25519PublicKey, verifyEd25519 } from './discord-signature.js';

/**
 * Options of `createDiscordInteractions`.
 *
 * @example
 * const options: DiscordInteractionsOptions = { runtime, publicKey: process.env.DISCORD_PUBLIC_KEY!, applicationId: '1234567890123456789' };
 */
export interface DiscordInteractionsOptions {
  /** The runtime whose notifier posted the cards (same OnceStore, same link secret). */
  readonly runtime: LinkedRuntime;
  /** The application's public key (Developer Portal → General Information), 64 hex characters. */
  readonly publicKey: string;
  /** The application's id, for editing the card through the interaction's webhook. */
  readonly applicationId: string;
  /** Default `https://discord.com/api/v10`. */
  readonly apiUrl?: string;
  /** `inline` (default): a decision resumes the run here; `enqueue`: it queues the run for a worker; `record`: another process follows the run (see `ResumeMode`). */
  readonly resumeMode?: ResumeMode;
  /** How long an inline resume is waited for before the card says the run is carrying on. Default 10,000 ms. */
  readonly resumeTimeoutMs?: number;
  /** Larger bodies are refused with 413. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Epoch milliseconds, for the signature's freshness. Default `Date.now`. */
  readonly clock?: () => number;
  /** Used to edit the card. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Failures nobody was told about: an edit Discord refused, a run that failed after the answer. */
  readonly onError?: (
    error: unknown,
    context: { readonly operation: 'click' | 'resume' | 'reply'; readonly runId?: string },
  ) => void;
}

const optionsSchema = optionsObject({
  ...answerOptionsShape,
  runtime: linkedRuntimeSchema,
  publicKey: z
    .string()
    .regex(
      /^[0-9a-f]{64}$/i,
      "must be the application's public key: 64 hex characters from the Developer Portal (General Information)",
    ),
  applicationId: z
    .string()
    .regex(SNOWFLAKE_PATTERN, 'must be the application id (digits) from the Developer Portal (General Information)'),
  apiUrl: httpUrlSchema({
    example: DISCORD_API_URL,
    credential: 'no option (interaction webhooks take none)',
  }).optional(),
  clock: functionSchema().optional(),
  fetch: functionSchema().optional(),
  onError: functionSchema().optional(),
});

/** Discord's signatures are refused this far from the server clock, either way. */
const TOLERANCE_SECONDS = 300;

const user = z.looseObject({ id: z.string().regex(SNOWFLAKE_PATTERN) });
const interactionSchema = z.looseObject({
  type: z.number().int(),
  token: z.string().max(1000).optional(),
  member: z.looseObject({ user }).optional(),
  user: user.optional(),
  data: z
    .looseObject({
      custom_id: z.string().max(100).optional(),
      components: z
        .array(
          z.looseObject({
            components: z
              .array(
                z.looseObject({ custom_id: z.string().max(100).optional(), value: z.string().max(4000).optional() }),
              )
              .optional(),
            component: z
              .looseObject({
                custom_id: z.string().max(100).optional(),
                value: z.string().max(4000).optional(),
                values: z.array(z.string().max(100)).max(25).optional(),
              })
              .optional(),
          }),
        )
        .max(10)
        .optional(),
    })
    .optional(),
});

const PING = 1;
const MESSAGE_COMPONENT = 3;
const MODAL_SUBMIT = 5;

const refused = (detail: string) => new HttpProblem(problem(401, 'invalid_discord_signature', detail));

/**
 * The route Discord sends interactions to (its Interactions Endpoint URL),
 * mounted at `/discord/interactions`. Every request must carry a fresh
 * `X-Signature-Ed25519` by `publicKey` (401 otherwise, which Discord checks
 * when the URL is saved). Approve and Approve for this run (or session) are acknowledged at
 * once and decided as `discord:<user id>`; Deny opens a modal asking why
 * (optional), decided once submitted. On a question, Answer opens its form
 * in a modal, checked once submitted (a refused answer is told to the
 * clicker alone, nothing recorded); Decline denies. The card is then edited to say what
 * happened, buttons removed, or the clicker alone is told why nothing was done.
 *
 * @example
 * import { createDiscordInteractions } from 'countersign/discord';
 *
 * const route = createDiscordInteractions({ runtime, publicKey: process.env.DISCORD_PUBLIC_KEY!, applicationId: process.env.DISCORD_APPLICATION_ID! });
 * createApprovalApp(runtime, { bearerToken, channels: [route] }); // or Bun.serve({ fetch: route.fetch })
 */
export function createDiscordInteractions(options: DiscordInteractionsOptions): ChannelRoute {
  parseOptions(optionsSchema, options, 'createDiscordInteractions');
  let key: ReturnType<typeof ed25519PublicKey>;
  try {
    key = ed25519PublicKey(options.publicKey);
  } catch {
    throw new ConfigError(
      'createDiscordInteractions: publicKey is not an Ed25519 public key; copy it again from the Developer Portal (General Information).',
      'invalid_config',
    );
  }
  const interactions = new DiscordClicks(options);
  const clock = options.clock ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  return {
    method: 'POST',
    path: '/discord/interactions',
    async fetch(request, context) {
      try {
        const timestamp = checkHeaders(request.headers, clock, maxBodyBytes);
        const raw = await readRawBody(request, maxBodyBytes);
        if (
          !verifyEd25519(key, Buffer.from(timestamp + raw, 'utf8'), request.headers.get('x-signature-ed25519') ?? '')
        ) {
          throw refused("X-Signature-Ed25519 is missing or is not the application's signature of this request.");
        }
        const body = await interactions.answer(parseJsonBody(interactionSchema, raw), context);
        return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
      } catch (error) {
        const { problem: body, headers, unexpected } = problemFor(error);
        if (unexpected) interactions.report(error, { operation: 'click' });
        return problemResponse(body, headers);
      }
    },
  };
}

/** The headers, checked before the body is read: a stale, unsigned or oversized request is refused without waiting for it. */
function checkHeaders(headers: Headers, clock: () => number, maxBodyBytes: number): string {
  const timestamp = headers.get('x-signature-timestamp') ?? '';
  if (!/^\d{1,15}$/.test(timestamp)) throw refused('X-Signature-Timestamp must be whole seconds since the epoch.');
  if (Math.abs(clock() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    throw refused(`X-Signature-Timestamp is more than ${TOLERANCE_SECONDS} s away from the server clock.`);
  if (!/^[0-9a-f]{128}$/i.test(headers.get('x-signature-ed25519') ?? ''))
    throw refused('X-Signature-Ed25519 must be 128 hex characters.');
  if (Number(headers.get('content-length') ?? 0) > maxBodyBytes) throw tooLarge(maxBodyBytes);
  return timestamp;
}

const privately = (reply: ClickReply) => ({
  type: 4,
  data: { content: reply.text, flags: 64, allowed_mentions: NO_MENTIONS },
});

/** A signed interaction answered: a PING, a click decided in the background, or Deny's modal asking why. */
class DiscordClicks {
  readonly #options: DiscordInteractionsOptions;
  readonly #resumeMode: ResumeMode;
  readonly #call: ReturnType<typeof discordApi>;

  constructor(options: DiscordInteractionsOptions) {
    this.#options = options;
    this.#resumeMode = resumeModeOf(options.resumeMode, options.runtime, 'createDiscordInteractions');
    this.#call = discordApi({
      apiUrl: options.apiUrl ?? DISCORD_API_URL,
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: 10_000,
    });
  }

  readonly report: NonNullable<DiscordInteractionsOptions['onError']> = (error, context) => {
    try {
      // The interaction token in an edit's URL is a credential for 15 minutes: never hand a URL on.
      this.#options.onError?.(publicError(error), context);
    } catch {
      // The reporter's own failure has nowhere left to go.
    }
  };

  async answer(
    interaction: z.output<typeof interactionSchema>,
    context: Parameters<ChannelRoute['fetch']>[1],
  ): Promise<unknown> {
    if (interaction.type === PING) return { type: 1 };
    const customId = interaction.data?.custom_id ?? '';
    const clickerId = interaction.member?.user.id ?? interaction.user?.id;
    if (
      (interaction.type !== MESSAGE_COMPONENT && interaction.type !== MODAL_SUBMIT) ||
      !customId.startsWith(CUSTOM_ID_PREFIX) ||
      !interaction.token ||
      !clickerId
    ) {
      throw new HttpProblem(
        problem(400, 'unsupported_interaction', "Only PINGs and clicks on countersign's own buttons are handled here."),
      );
    }
    const clicker = `discord:${clickerId}`;
    const runtime = this.#options.runtime;
    let token: string | undefined;
    try {
      token = await tokenOfButton(runtime.once, 'discord', customId.slice(CUSTOM_ID_PREFIX.length));
    } catch (error) {
      this.report(error, { operation: 'click' });
      return privately(refusalReply({ kind: 'store' }, clicker, 'Discord', discordMarkup));
    }
    if (token === undefined) return privately(refusalReply({ kind: 'expired' }, clicker, 'Discord', discordMarkup));
    if (interaction.type === MESSAGE_COMPONENT && isDeny(runtime, token)) {
      const reasonInput = {
        type: 4,
        custom_id: 'reason',
        style: 2,
        label: 'Why deny?',
        required: false,
        max_length: 1000,
      };
      return {
        type: 9,
        data: { custom_id: customId, title: 'Deny this call', components: [{ type: 1, components: [reasonInput] }] },
      };
    }
    const asked = await questionOf(runtime, token);
    let answer: Answer | undefined;
    if (asked !== undefined) {
      // Answer opens the form; its submission is checked before anything is recorded.
      if (interaction.type === MESSAGE_COMPONENT)
        return fitsModal(asked.question)
          ? questionModal(customId, asked.request, asked.question)
          : privately(told('This question is answered on its page or in the approval console; nothing was done.'));
      const read = readAnswer(asked.question, modalEntries(interaction.data?.components ?? []));
      if (read.issues.length > 0) return privately(told(answerRefusal(asked.question, read.issues, discordMarkup)));
      answer = read.answer;
    }
    const reason = answer === undefined ? interaction.data?.components?.[0]?.components?.[0]?.value?.trim() : undefined;
    const work = this.#decide(interaction.token, token, clicker, reason, answer).catch((error: unknown) =>
      this.report(error, { operation: 'click' }),
    );
    context?.waitUntil?.(work);
    return { type: 6 };
  }

  async #decide(
    interactionToken: string,
    token: string,
    clicker: string,
    reason: string | undefined,
    answer?: Answer,
  ): Promise<void> {
    const reply = await answerClick(this.#options.runtime, {
      ...(answer === undefined ? {} : { answer }),
      token,
      clicker,
      channel: 'Discord',
      markup: discordMarkup,
      resumeMode: this.#resumeMode,
      resumeTimeoutMs: this.#options.resumeTimeoutMs ?? 10_000,
      onError: this.report,
      ...(reason ? { reason } : {}),
    });
    await this.#tell(interactionToken, reply).catch((error: unknown) => this.report(error, { operation: 'reply' }));
  }

  /** Says `reply` where the clicker reads it: on the card (buttons removed) or to them alone. */
  async #tell(interactionToken: string, reply: ClickReply): Promise<void> {
    const hook = `/webhooks/${this.#options.applicationId}/${interactionToken}`;
    await (reply.replace
      ? this.#call('PATCH', `${hook}/messages/@original`, {
          content: reply.text,
          components: [],
          allowed_mentions: NO_MENTIONS,
        })
      : this.#call('POST', hook, { content: reply.text, flags: 64, allowed_mentions: NO_MENTIONS }));
  }
}

/** What a clicker is told privately: `text` alone. */
const told = (text: string): ClickReply => ({ short: text, text, replace: false });

/**
 * The pending question an approve token answers, or undefined for any other token (a deny, a forged or spent one, a
 * request that asks nothing, a run the store cannot give now): deciding it then says why, as for any click.
 */
async function questionOf(
  runtime: LinkedRuntime,
  token: string,
): Promise<{ readonly request: ApprovalRequest; readonly question: Question } | undefined> {
  let claim: LinkClaim;
  try {
    claim = runtime.links.verify(token);
  } catch {
    return undefined;
  }
  if (claim.decision !== 'approve') return undefined;
  const snapshot = await runtime.get(claim.runId).catch(() => undefined);
  const request = snapshot?.pendingApprovals.find((item) => item.approvalId === claim.approvalId);
  return request?.question === undefined ? undefined : { request, question: request.question };
}

/** Whether a still valid token denies (its click asks for a reason first); a spent or forged one is left to answerClick to refuse. */
function isDeny(runtime: LinkedRuntime, token: string): boolean {
  try {
    return runtime.links.verify(token).decision === 'deny';
  } catch {
    return false;
  }
}

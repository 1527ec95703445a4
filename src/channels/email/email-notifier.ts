// The email channel on the kit: one mail per recipient with links minted for that recipient (so the audit records
// who decided), its follow-ups threaded under it. Links open the approval app's confirmation page, so a mail
// scanner that fetches them decides nothing.
import { z } from 'zod';
import {
  createChannelNotifier,
  type ApprovalCard,
  type ChannelDriver,
  type ChannelNotifier,
} from '../channel-notifier.js';
import { channelOptionsShape, channelSettings, type ChannelOptions } from '../channel-options.js';
import { approvalLinkUrl } from '../../index.js';
import { decisionButtons, DeliveryError, functionSchema, optionsObject, parseOptions } from '../../kit/index.js';
import { ConfigError } from '../../errors.js';
import { approvalMail, outcomeMail } from './email-content.js';
import { approvalSubject, stableMessageId } from './email-headers.js';
import { createRecipientProgress } from './recipient-progress.js';
import {
  smtpFailure,
  smtpTransport,
  type EmailMessage,
  type EmailTransport,
  type SmtpOptions,
} from './smtp-transport.js';

/**
 * Who is asked: one address, several, or a function of the card. A run
 * started with `origin: { channel: 'email', address }` is asked at that address instead.
 *
 * @example
 * const to: EmailRecipients = (card) => (card.request.toolName === 'deploy' ? ['ops@example.com'] : 'alice@example.com');
 */
export type EmailRecipients =
  | string
  | readonly string[]
  | ((card: ApprovalCard) => string | readonly string[] | Promise<string | readonly string[]>);

/**
 * Options of `createEmailNotifier`: the shared channel options, where the links point, who sends to whom, and how.
 *
 * @example
 * const options: EmailNotifierOptions = { runtime, baseUrl: 'https://approvals.example.com', from: 'Approvals <approvals@example.com>', to: 'ops@example.com', smtp: { host: 'smtp.example.com', port: 587 } };
 */
export interface EmailNotifierOptions extends ChannelOptions {
  /** The public URL of the approval app (`createApprovalApp`); links are `${baseUrl}/links/<token>`. */
  readonly baseUrl: string;
  /** The sender: `approvals@example.com` or `Approvals <approvals@example.com>`. */
  readonly from: string;
  readonly to: EmailRecipients;
  /** Send through this SMTP server with nodemailer (install it: `npm install nodemailer`). */
  readonly smtp?: SmtpOptions;
  /** Or through this (a nodemailer transport, or your own). */
  readonly transport?: EmailTransport;
}

/**
 * What the notifier keeps of a sent card to thread its follow-ups: the subject, and each recipient's Message-ID.
 *
 * @example
 * const ref: EmailRef = { subject: 'Approval needed: deploy for ops', messageIds: { 'alice@example.com': '<countersign.3f…@approvals.example.com>' } };
 */
export interface EmailRef {
  readonly subject: string;
  readonly messageIds: Readonly<Record<string, string>>;
}

/** A bare address, nothing a header could be built around: no name, brackets, separators, spaces or line breaks. */
const ADDRESS = /^[^\s@<>()[\]",;:\\]+@[^\s@<>()[\]",;:\\]+$/;
const addressSchema = z.string().regex(ADDRESS, 'must be a bare address like alice@example.com');

const emailOptionsSchema = optionsObject({
  ...channelOptionsShape,
  baseUrl: z.url({
    protocol: /^https?$/,
    error: 'must be the public http(s) URL of the approval app, like https://approvals.example.com',
  }),
  from: z
    .string()
    .min(3)
    .regex(/^[^\r\n\p{Cc}]+$/u, 'must be one line, like Approvals <approvals@example.com>'),
  to: z.union([addressSchema, z.array(addressSchema).min(1), functionSchema()], {
    error: 'must be an address, a list of addresses, or a function of the card returning them',
  }),
  smtp: optionsObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65_535),
    secure: z.boolean().optional(),
    requireTLS: z.boolean().optional(),
    ignoreTLS: z.boolean().optional(),
    auth: optionsObject({ user: z.string().min(1), pass: z.string().min(1) }).optional(),
  }).optional(),
  transport: z
    .custom<EmailTransport>(
      (value) => typeof (value as EmailTransport | undefined)?.sendMail === 'function',
      'must have a sendMail(message) method, like a nodemailer transport',
    )
    .optional(),
});

/** The addresses `card` goes to, checked, each once. */
async function recipientsOf(card: ApprovalCard, to: EmailRecipients): Promise<readonly string[]> {
  const chosen =
    card.origin?.channel === 'email' ? card.origin.address : typeof to === 'function' ? await to(card) : to;
  const list = typeof chosen === 'string' ? [chosen] : chosen;
  const bad = list.find((address) => !ADDRESS.test(address));
  if (bad !== undefined || list.length === 0) {
    const what = bad === undefined ? 'no address' : `${JSON.stringify(bad.slice(0, 80))}, which is not a bare address`;
    throw new ConfigError(
      `createEmailNotifier: the recipients of run ${card.runId} (to, or the run's email origin) gave ${what}. Give addresses like alice@example.com.`,
      'invalid_config',
    );
  }
  // Each address once, however it is capitalised.
  return [...new Map(list.map((address) => [address.toLowerCase(), address] as const)).values()];
}

const retryable = (error: unknown) => error instanceof DeliveryError && error.retryable;

/**
 * A notifier that mails each approval to its recipients, with Approve,
 * Approve for this run (or session) and Deny links to the approval app, and mails a
 * threaded follow-up when the approval is decided elsewhere, expires, or the
 * approved call finishes. `import 'countersign/email'` loads nodemailer only
 * at the first send over `smtp`.
 *
 * @example
 * import { createEmailNotifier } from 'countersign/email';
 *
 * const email = createEmailNotifier({
 *   runtime, // createRuntime({ agents, store, links: { secret } })
 *   baseUrl: 'https://approvals.example.com', // where createApprovalApp(runtime) is served
 *   from: 'Approvals <approvals@example.com>',
 *   to: ['alice@example.com', 'bob@example.com'],
 *   smtp: { host: 'smtp.example.com', port: 587, auth: { user: 'approvals', pass: process.env.SMTP_PASSWORD! } },
 * });
 * runtime.subscribe((event) => void email.publish([event]));
 */
export function createEmailNotifier(options: EmailNotifierOptions): ChannelNotifier {
  parseOptions(emailOptionsSchema, options, 'createEmailNotifier');
  if ((options.smtp === undefined) === (options.transport === undefined)) {
    throw new ConfigError(
      'createEmailNotifier: give either smtp ({ host, port, auth }) or transport (an object with sendMail), not both or neither.',
      options.smtp === undefined ? 'missing_option' : 'invalid_config',
    );
  }
  const settings = channelSettings(options);
  const { runtime } = settings;
  const { baseUrl, from, to } = options;
  const host = new URL(baseUrl).hostname;
  const transport = options.transport ?? smtpTransport(options.smtp!, settings.timeoutMs);
  const password = options.smtp?.auth?.pass;
  const redact = (text: string) => (password === undefined ? text : text.split(password).join('[redacted]'));
  const progress = createRecipientProgress();
  const send = async (message: EmailMessage) => {
    try {
      await transport.sendMail(message);
    } catch (error) {
      throw smtpFailure(error, redact);
    }
  };

  const driver: ChannelDriver<EmailRef> = {
    name: 'email',
    redact,
    async post(card) {
      const { runId, request } = card;
      const recipients = await recipientsOf(card, to);
      const subject = approvalSubject(request.toolName, card.agentName);
      const messageIds = Object.fromEntries(
        recipients.map((recipient) => [recipient, stableMessageId(host, runId, request.approvalId, recipient)]),
      );
      await progress.each(
        `post:${runId}:${request.approvalId}`,
        recipients,
        async (recipient) => {
          const tokens = runtime.links.mint({
            runId,
            approvalId: request.approvalId,
            expiresAt: card.tokens.expiresAt,
            approvedBy: recipient,
            ...(card.sessionId === undefined ? {} : { sessionId: card.sessionId }),
            ...(request.decisions === undefined ? {} : { decisions: request.decisions }),
          });
          // Only the decisions the request offers (a vote on a quorum request is once: no wider approval).
          const links = decisionButtons(request, tokens).map((button) => ({
            label: button.label,
            url: approvalLinkUrl(baseUrl, button.token),
          }));
          await send({ from, to: recipient, subject, ...approvalMail(card, links), messageId: messageIds[recipient]! });
        },
        retryable,
      );
      return { subject, messageIds };
    },
    async update({ runId, approvalId, ref, outcome }) {
      if (ref === undefined) return;
      const body = outcomeMail(outcome);
      await progress.each(
        `update:${runId}:${approvalId}:${outcome.kind}`,
        Object.keys(ref.messageIds),
        async (recipient) => {
          const parent = ref.messageIds[recipient]!;
          await send({
            from,
            to: recipient,
            subject: `Re: ${ref.subject}`,
            ...body,
            messageId: stableMessageId(host, parent, outcome.kind),
            inReplyTo: parent,
            references: parent,
          });
        },
        retryable,
      );
    },
  };
  return createChannelNotifier(driver, settings);
}

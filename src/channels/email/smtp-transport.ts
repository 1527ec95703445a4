// How a mail leaves: nodemailer's SMTP client, loaded at the first send so that `import 'countersign/email'` works
// without it, or any object with its `sendMail`. A failure becomes a DeliveryError: a 4xx reply or a lost
// connection is worth another try (with the wait a server asks for, as greylisting does), a 5xx reply is final.
import { DeliveryError } from '../../kit/index.js';
import { ConfigError, isCountersignError } from '../../errors.js';

/**
 * One mail, in the fields nodemailer's `sendMail` takes.
 *
 * @example
 * const message: EmailMessage = { from: 'approvals@example.com', to: 'alice@example.com', subject: 'Hi', text: 'Hi', html: '<p>Hi</p>', messageId: '<a.1@example.com>' };
 */
export interface EmailMessage {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly messageId: string;
  readonly inReplyTo?: string;
  readonly references?: string;
}

/**
 * What sends a mail: a nodemailer transport (`nodemailer.createTransport(...)`) or your own. Throw an error with
 * nodemailer's `responseCode` (the SMTP reply) or `code` (`ECONNECTION`, `ETIMEDOUT` …) to have it retried or not.
 *
 * @example
 * const transport: EmailTransport = { sendMail: async (message) => outbox.push(message) };
 */
export interface EmailTransport {
  sendMail(message: EmailMessage): Promise<unknown>;
}

/**
 * Where nodemailer connects.
 *
 * @example
 * const smtp: SmtpOptions = { host: 'smtp.example.com', port: 587, auth: { user: 'approvals', pass: process.env.SMTP_PASSWORD! } };
 */
export interface SmtpOptions {
  readonly host: string;
  readonly port: number;
  /** TLS from the start (port 465). Default false: STARTTLS when the server offers it. */
  readonly secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds. */
  readonly requireTLS?: boolean;
  /** Never STARTTLS (a local relay without TLS). */
  readonly ignoreTLS?: boolean;
  readonly auth?: { readonly user: string; readonly pass: string };
}

/** A transport over nodemailer's SMTP client, made at the first send; one try is abandoned after `timeoutMs`. */
export function smtpTransport(smtp: SmtpOptions, timeoutMs: number): EmailTransport {
  let made: Promise<EmailTransport> | undefined;
  const make = async (): Promise<EmailTransport> => {
    let nodemailer: typeof import('nodemailer');
    try {
      nodemailer = await import('nodemailer');
    } catch {
      throw new ConfigError(
        'createEmailNotifier: smtp needs the nodemailer package, which is not installed. Run npm install nodemailer, or pass transport instead.',
        'missing_option',
      );
    }
    const { auth, ...connection } = smtp;
    const transporter = nodemailer.createTransport({
      ...connection,
      ...(auth === undefined ? {} : { auth: { user: auth.user, pass: auth.pass } }),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    return { sendMail: (message) => transporter.sendMail({ ...message }) };
  };
  return {
    async sendMail(message) {
      made ??= make();
      return (await made).sendMail(message);
    },
  };
}

/** Codes nodemailer (and Node) give a connection that failed or was lost: worth another try. */
const CONNECTION_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
]);

/** The wait a server's reply asks for ("try again in 30 seconds", "retry after 5 minutes"), in milliseconds. */
export function askedWait(reply: string): number | undefined {
  const match = /\b(?:try again|retry)\s+(?:in|after)\s+(\d{1,6})\s*(s|secs?|seconds?|m|mins?|minutes?)\b/i.exec(reply);
  if (!match) return undefined;
  return Number(match[1]) * (match[2]!.toLowerCase().startsWith('m') ? 60_000 : 1000);
}

/** `error` of a send as a DeliveryError, every text passed through `redact`; countersign's own errors as they are. */
export function smtpFailure(error: unknown, redact: (text: string) => string): unknown {
  if (isCountersignError(error)) return error;
  const { responseCode, code, response, message } = (error ?? {}) as {
    responseCode?: unknown;
    code?: unknown;
    response?: unknown;
    message?: unknown;
  };
  if (typeof responseCode === 'number') {
    // The server's reply (its code left out: the message names it), whitespace made single spaces.
    const said = redact(String(response ?? message ?? ''))
      .replace(/^\d{3}[ -]/, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200);
    const retryable = responseCode >= 400 && responseCode < 500;
    const wait = retryable ? askedWait(said) : undefined;
    return new DeliveryError(`The SMTP server answered ${responseCode}${said ? `: ${said}` : ''}`, {
      retryable,
      status: responseCode,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
  }
  if (typeof code === 'string' && CONNECTION_CODES.has(code))
    return new DeliveryError(`The SMTP server could not be reached (${code})`, { retryable: true });
  return new DeliveryError(
    `The mail could not be sent: ${redact(typeof message === 'string' ? message : String(error))}`,
    { retryable: false },
  );
}

// A real SMTP server (smtp-server) on loopback, no TLS, collecting every message it accepts. Its answers to the
// next messages can be scripted (a 4xx or 5xx reply to the end of DATA), and it can require a user and password.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { parseMail, type ParsedMail } from './parse-mail.js';

export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly raw: string;
  readonly mail: ParsedMail;
}

/** An SMTP reply to one message instead of accepting it, e.g. `{ code: 451, message: '4.7.1 Try again in 2 seconds' }`. */
export interface SmtpFault {
  readonly code: number;
  readonly message: string;
}

export interface FakeSmtp {
  readonly port: number;
  readonly received: ReceivedMail[];
  /** Replies to the next messages, in order (`null` accepts one), before every message is accepted again. */
  readonly faults: (SmtpFault | null)[];
  /** Messages received for `address`, in order. */
  inbox(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startFakeSmtp(
  options: { readonly auth?: { readonly user: string; readonly pass: string } } = {},
): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const faults: (SmtpFault | null)[] = [];
  const { auth } = options;
  const server = new SMTPServer({
    disabledCommands: auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: auth === undefined,
    logger: false,
    onAuth(login, _session, callback) {
      if (auth !== undefined && login.username === auth.user && login.password === auth.pass)
        return callback(null, { user: login.username });
      callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const fault = faults.shift();
        if (fault) return callback(Object.assign(new Error(fault.message), { responseCode: fault.code }));
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        received.push({ from, to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, mail: parseMail(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    faults,
    inbox: (address) => received.filter((mail) => mail.to.includes(address)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

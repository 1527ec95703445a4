// The email channel against the channel contract: a real SMTP server on loopback, and the approval app on a real
// socket serving the links. What a person reads is the text/plain part (its HTML part must read the same words);
// what is active is markup in the HTML part the template did not write. A click opens the link from the clicker's
// own mail and submits the confirmation page's form.
import { createEmailNotifier, type EmailNotifierOptions } from 'countersign/email';
import { createApprovalApp, serve } from 'countersign/http';
import { channelContract, type Delivery, type FaultPlan } from '../../support/channel-contract.js';
import { startFakeSmtp, type SmtpFault } from '../../support/fake-smtp.js';
import {
  activeInHtml,
  answerOnPage,
  clickLink,
  linkLabels,
  linkOf,
  visibleText,
  type LinkLabel,
} from './mail-reading.js';

const SMTP_USER = 'countersign';
const SMTP_PASSWORD = 'smtp-password-9f8e7d6c5b4a';
const addressOf = (user: string) => `${user.toLowerCase()}@example.test`;
/** The contract's users; the first one's inbox is the one whose mails are counted. */
const USERS = ['U1', 'U2', 'U3'];

/** A service fault as an SMTP server says it: a temporary 451 (with the wait it asks for) or a final 550. */
function smtpFault(fault: FaultPlan[number], echoSecrets: boolean): SmtpFault {
  if (fault.status === 429 || fault.status >= 500) {
    return {
      code: 451,
      message: `4.7.1 Try again later${fault.retryAfterSeconds === undefined ? '' : `; try again in ${fault.retryAfterSeconds} seconds`}`,
    };
  }
  return { code: 550, message: `5.7.1 Relaying denied${echoSecrets ? ` for ${SMTP_USER}:${SMTP_PASSWORD}` : ''}` };
}

channelContract({
  name: 'email',
  secrets: [SMTP_PASSWORD],
  async setup(runtime, { faults = [], echoSecretsInErrors = false }) {
    const smtp = await startFakeSmtp({ auth: { user: SMTP_USER, pass: SMTP_PASSWORD } });
    smtp.faults.push(...faults.map((fault) => smtpFault(fault, echoSecretsInErrors)));
    const server = await serve(createApprovalApp(runtime, { insecure: true }), { port: 0 });
    const sleeps: number[] = [];
    const errors: unknown[] = [];
    const options: EmailNotifierOptions = {
      runtime,
      baseUrl: server.url,
      from: 'Approvals <approvals@example.test>',
      to: USERS.map(addressOf),
      smtp: {
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        ignoreTLS: true,
        auth: { user: SMTP_USER, pass: SMTP_PASSWORD },
      },
      sleep: async (ms) => void sleeps.push(ms),
      onError: (error) => void errors.push(error),
    };
    const posts = (user: string) =>
      smtp.inbox(addressOf(user)).filter((mail) => mail.mail.header('in-reply-to') === undefined);
    return {
      notifier: createEmailNotifier(options),
      another: () => createEmailNotifier(options),
      deliveries: () =>
        smtp.inbox(addressOf(USERS[0]!)).map(
          (mail): Delivery => ({
            kind: mail.mail.header('in-reply-to') === undefined ? 'post' : 'update',
            visible: visibleText(mail),
            active: activeInHtml(mail.mail.html ?? ''),
          }),
        ),
      sleeps,
      errors,
      click: (index, button, user) => {
        const received = posts(user)[index]!;
        const labels = linkLabels(received);
        const wider = labels.find((label) => label.startsWith('Approve for this')) as LinkLabel;
        const deny = labels.includes('Decline') ? 'Decline' : 'Deny';
        return clickLink(linkOf(received, button === 'approve' ? 'Approve' : button === 'wider' ? wider : deny));
      },
      answer: (index, value, user) => answerOnPage(linkOf(posts(user)[index]!, 'Answer'), value),
      buttons: (index) => linkLabels(posts(USERS[0]!)[index]!),
      decider: addressOf,
      async close() {
        await Promise.all([smtp.close(), server.close()]);
      },
    };
  },
});

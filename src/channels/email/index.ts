// countersign/email: approvals asked by mail, with links to the approval app's confirmation pages.
export {
  createEmailNotifier,
  type EmailNotifierOptions,
  type EmailRecipients,
  type EmailRef,
} from './email-notifier.js';
export type { EmailMessage, EmailTransport, SmtpOptions } from './smtp-transport.js';

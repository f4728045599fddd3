// Port: sends one e-mail (SES v2 in AWS; the same client against a local SES v2 endpoint locally).

export interface Mail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface Mailer {
  /** Rejects with MailRefusedError when the mail service refused the message (other errors: it was unreachable). */
  send(mail: Mail): Promise<{ messageId: string }>;
}

/**
 * The mail service refused the message. `permanent`: sending it again cannot work (an address not verified in the
 * SES sandbox, an invalid address, sending paused or suspended): it is recorded failed once, with `message` as the
 * reason. Otherwise (throttling, a server fault) it is retried on the delivery schedule.
 */
export class MailRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailRefusedError';
  }
}

// Port: sends one e-mail (SES v2 in AWS; the same client against a local SES v2 endpoint locally).

export interface Mail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<{ messageId: string }>;
}

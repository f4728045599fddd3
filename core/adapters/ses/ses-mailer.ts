// Mailer on SES v2 (SendEmail, simple content), sent from the configured verified identity; SES's refusals become
// MailRefusedErrors, permanent or not (ses-refusals.ts).
import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { Mail, Mailer } from '../../ports/mailer';
import { sesRefusalOf } from './ses-refusals';

export class SesMailer implements Mailer {
  constructor(
    private readonly ses: SESv2Client,
    private readonly from: string,
  ) {}

  async send(mail: Mail): Promise<{ messageId: string }> {
    try {
      return await this.sendEmail(mail);
    } catch (err) {
      throw sesRefusalOf(err) ?? err;
    }
  }

  private async sendEmail(mail: Mail): Promise<{ messageId: string }> {
    const out = await this.ses.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [mail.to] },
        Content: {
          Simple: {
            Subject: { Data: mail.subject, Charset: 'UTF-8' },
            Body: {
              Html: { Data: mail.html, Charset: 'UTF-8' },
              Text: { Data: mail.text, Charset: 'UTF-8' },
            },
          },
        },
      }),
    );
    return { messageId: out.MessageId ?? '' };
  }
}

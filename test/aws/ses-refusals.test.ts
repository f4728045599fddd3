// SES refusals from moto's SES v2, as the SDK reads them: moto enforcing IAM answers a sender without ses:SendEmail
// AccessDenied (HTTP 403), and an unverified sender MessageRejected; both are permanent refusals with SES's reason.
import {
  CreateAccessKeyCommand,
  CreateUserCommand,
  IAMClient,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SesMailer } from '../../core/adapters/ses/ses-mailer';
import { MailRefusedError } from '../../core/ports/mailer';
import { requires, skipReason } from '../support/requirements';
import { type Moto, motoRegion, startMoto } from './support/moto';

const skip = skipReason(requires.motoServer());
const mail = { to: 'team@acme.example', subject: 's', html: '<p>h</p>', text: 't' };

describe.skipIf(skip)('SES refusals against moto', () => {
  let moto: Moto;
  let admin: IAMClient;
  const clients: { destroy(): void }[] = [];
  /** A mailer signing as a new IAM user of moto's, allowed what `policy` allows (nothing without one). */
  async function mailerAs(user: string, policy?: object): Promise<SesMailer> {
    await admin.send(new CreateUserCommand({ UserName: user }));
    const { AccessKey } = await admin.send(new CreateAccessKeyCommand({ UserName: user }));
    if (policy)
      await admin.send(
        new PutUserPolicyCommand({
          UserName: user,
          PolicyName: 'send',
          PolicyDocument: JSON.stringify(policy),
        }),
      );
    const ses = new SESv2Client({
      region: motoRegion,
      endpoint: moto.endpoint,
      maxAttempts: 1,
      credentials: { accessKeyId: AccessKey!.AccessKeyId!, secretAccessKey: AccessKey!.SecretAccessKey! },
    });
    clients.push(ses);
    return new SesMailer(ses, 'bots@example.com');
  }

  beforeAll(async () => {
    // IAM is enforced after the first three calls, which create the admin user that creates the others.
    moto = await startMoto({ INITIAL_NO_AUTH_ACTION_COUNT: '3' });
    const iam = (credentials: { accessKeyId: string; secretAccessKey: string }) => {
      const client = new IAMClient({ region: motoRegion, endpoint: moto.endpoint, credentials });
      clients.push(client);
      return client;
    };
    const anonymous = iam({ accessKeyId: 'test', secretAccessKey: 'test' });
    await anonymous.send(new CreateUserCommand({ UserName: 'admin' }));
    const { AccessKey } = await anonymous.send(new CreateAccessKeyCommand({ UserName: 'admin' }));
    await anonymous.send(
      new PutUserPolicyCommand({
        UserName: 'admin',
        PolicyName: 'all',
        PolicyDocument: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
        }),
      }),
    );
    admin = iam({ accessKeyId: AccessKey!.AccessKeyId!, secretAccessKey: AccessKey!.SecretAccessKey! });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await moto?.stop();
  });

  it('a role without ses:SendEmail: AccessDenied, permanent, with SES’s reason', async () => {
    const refused = await (await mailerAs('no-send')).send(mail).catch((e: unknown) => e);
    expect(refused, moto.log()).toBeInstanceOf(MailRefusedError);
    expect(refused).toMatchObject({ permanent: true });
    // moto answers in XML, which the SES v2 SDK (JSON) cannot read: the 403 itself says what it is. Real SES's JSON
    // AccessDeniedException, as the SDK reads it, is in test/unit/ses-refusals.test.ts ("over the wire").
    expect((refused as MailRefusedError).code).toBe('AccessDenied');
    expect((refused as Error).message).toMatch(
      /^SES refused the message: AccessDenied: HTTP 403.*IAM policy/,
    );
  });

  it('a sender that is not a verified identity: MessageRejected, permanent', async () => {
    const allowed = await mailerAs('may-send', {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'ses:SendEmail', Resource: '*' }],
    });
    const refused = await allowed.send(mail).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MailRefusedError);
    expect(refused).toMatchObject({ permanent: true, code: 'MessageRejected' });
    expect((refused as Error).message).toContain('not verified bots@example.com');
  });
});

// SES refusals sorted into permanent (recorded failed once) and transient (retried), over the errors the SES v2 SDK
// builds from SES's answers (name, $fault, $metadata.httpStatusCode, message), and the SesMailer that raises them.
import {
  AccountSuspendedException,
  BadRequestException,
  LimitExceededException,
  MailFromDomainNotVerifiedException,
  MessageRejected,
  SESv2Client,
  SESv2ServiceException,
  SendEmailCommand,
  SendingPausedException,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../core/adapters/ses/ses-mailer';
import { sesRefusalOf } from '../../core/adapters/ses/ses-refusals';
import { MailRefusedError } from '../../core/ports/mailer';

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const sandboxMessage =
  'Email address is not verified. The following identities failed the check in region US-EAST-1: team@acme.example';

describe('sesRefusalOf', () => {
  it('takes as permanent what no retry can fix: sandbox, unverified sender, invalid address, paused or suspended', () => {
    for (const err of [
      new MessageRejected({ message: sandboxMessage, ...meta(400) }),
      // moto 5.2.1's answer for a sender that is not a verified identity (test/aws/deployed-life.test.ts).
      new SESv2ServiceException({
        name: 'MessageRejected',
        message: 'Email address not verified bots@example.com',
        $fault: 'client',
        ...meta(400),
      }),
      new MailFromDomainNotVerifiedException({ message: 'MAIL FROM domain not verified', ...meta(400) }),
      new AccountSuspendedException({ message: 'account suspended', ...meta(400) }),
      new SendingPausedException({ message: 'sending paused for this account', ...meta(400) }),
      new BadRequestException({ message: "Illegal address: Missing final '@domain'", ...meta(400) }),
      new SESv2ServiceException({
        name: 'InvalidParameterValue',
        message: 'Missing domain',
        $fault: 'client',
        ...meta(400),
      }),
    ]) {
      const refusal = sesRefusalOf(err);
      expect(refusal, err.name).toBeInstanceOf(MailRefusedError);
      expect(refusal!.permanent, err.message).toBe(true);
      expect(refusal!.code).toBe(err.name);
      expect(refusal!.message).toContain(err.message);
    }
  });

  it('says what to do when SES names an address that is not verified (the sandbox)', () => {
    const refusal = sesRefusalOf(new MessageRejected({ message: sandboxMessage, ...meta(400) }));
    expect(refusal!.message).toMatch(
      /^SES refused the message: MessageRejected: Email address is not verified.*team@acme\.example.*sandbox.*production access/,
    );
  });

  it('takes as transient what passes with time: throttling, sending quotas, server faults', () => {
    for (const err of [
      new TooManyRequestsException({ message: 'Too many requests', ...meta(429) }),
      new LimitExceededException({ message: 'Daily message quota exceeded.', ...meta(400) }),
      new MessageRejected({ message: 'Maximum sending rate exceeded.', ...meta(400) }),
      new SESv2ServiceException({
        name: 'Throttling',
        message: 'Rate exceeded',
        $fault: 'client',
        ...meta(400),
      }),
      new SESv2ServiceException({
        name: 'InternalFailure',
        message: 'internal error',
        $fault: 'server',
        ...meta(500),
      }),
      new SESv2ServiceException({ name: 'ServiceUnavailable', message: '', $fault: 'server', ...meta(503) }),
    ]) {
      const refusal = sesRefusalOf(err);
      expect(refusal, err.name).toBeInstanceOf(MailRefusedError);
      expect(refusal!.permanent, `${err.name}: ${err.message}`).toBe(false);
    }
  });

  it('is no refusal when SES never answered (network, timeout): that error stays as it was', () => {
    expect(sesRefusalOf(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(sesRefusalOf(new Error('Request timed out'))).toBeUndefined();
  });
});

describe('SesMailer', () => {
  const ses = mockClient(SESv2Client);
  afterAll(() => ses.restore());
  beforeEach(() => ses.reset());
  const mailer = () => new SesMailer(new SESv2Client({ region: 'us-east-1' }), 'bots@example.com');
  const mail = { to: 'team@acme.example', subject: 's', html: '<p>h</p>', text: 't' };

  it('turns an SES refusal into a MailRefusedError, and passes a network error on unchanged', async () => {
    ses.on(SendEmailCommand).rejectsOnce(new MessageRejected({ message: sandboxMessage, ...meta(400) }));
    const refused = await mailer()
      .send(mail)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MailRefusedError);
    expect(refused).toMatchObject({ permanent: true, code: 'MessageRejected' });

    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    ses.reset();
    // Every attempt (the SDK retries a reset connection itself).
    ses.on(SendEmailCommand).rejects(reset);
    expect(
      await mailer()
        .send(mail)
        .catch((e: unknown) => e),
    ).toBe(reset);

    ses.reset();
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    expect(await mailer().send(mail)).toEqual({ messageId: 'm-1' });
  });
});

// SES refusals sorted into permanent (recorded failed once) and transient (retried), over the errors the SES v2 SDK
// builds from SES's answers (name, $fault, $metadata.httpStatusCode, message), and the SesMailer that raises them.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
      // Our own IAM policy: the stack's ses:FromAddress condition, or a role without ses:SendEmail.
      new SESv2ServiceException({
        name: 'AccessDeniedException',
        message:
          'User: arn:aws:sts::123456789012:assumed-role/delivery/fn is not authorized to perform: ses:SendEmail on ' +
          'resource: arn:aws:ses:us-east-1:123456789012:identity/example.com',
        $fault: 'client',
        ...meta(403),
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

/**
 * The errors as the SES v2 SDK itself builds them from SES's answers on the wire (a loopback server answering as SES
 * does: status, `x-amzn-ErrorType`, JSON body), through the SesMailer, so a change in how the SDK names or shapes an
 * error shows here and not in production.
 */
describe('SesMailer over the wire', () => {
  let answer: { status: number; type: string; message: string } = { status: 200, type: '', message: '' };
  let server: Server;
  let endpoint = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer.status, { 'content-type': 'application/json', 'x-amzn-ErrorType': answer.type });
        res.end(JSON.stringify({ message: answer.message }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function refusalFor(status: number, type: string, message: string) {
    answer = { status, type, message };
    // One attempt: the SDK's own retries of a throttled or 5xx answer are not what this test is about.
    const client = new SESv2Client({
      region: 'us-east-1',
      endpoint,
      maxAttempts: 1,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    try {
      return await new SesMailer(client, 'bots@example.com')
        .send({ to: 'team@acme.example', subject: 's', html: '<p>h</p>', text: 't' })
        .catch((e: unknown) => e);
    } finally {
      client.destroy();
    }
  }

  it.each([
    [
      403,
      'AccessDeniedException',
      'User: arn:aws:sts::123456789012:assumed-role/d/f is not authorized to perform: ses:SendEmail',
    ],
    [400, 'MailFromDomainNotVerifiedException', 'MAIL FROM domain mail.example.com is not verified'],
    [400, 'AccountSuspendedException', 'Your account has been suspended'],
    [400, 'MessageRejected', sandboxMessage],
    [404, 'NotFoundException', 'Configuration set <results> does not exist.'],
    [400, 'SendingPausedException', 'Email sending is disabled for this account'],
  ])('%s %s is permanent, with SES’s name and message as the reason', async (status, type, message) => {
    const refused = await refusalFor(status, type, message);
    expect(refused).toBeInstanceOf(MailRefusedError);
    expect(refused).toMatchObject({ permanent: true, code: type });
    expect((refused as Error).message).toContain(`SES refused the message: ${type}: ${message}`);
  });

  it('says where the IAM refusal comes from', async () => {
    const refused = (await refusalFor(403, 'AccessDeniedException', 'not authorized')) as Error;
    expect(refused.message).toMatch(/IAM policy.*ses:SendEmail/);
  });

  it.each([
    [429, 'TooManyRequestsException', 'Too Many Requests'],
    [400, 'LimitExceededException', 'Daily message quota exceeded.'],
    [500, 'InternalFailure', 'internal error'],
    [503, 'ServiceUnavailable', 'Service unavailable'],
    // Temporary credentials that expired: the SDK fetches new ones for the next attempt.
    [403, 'ExpiredTokenException', 'The security token included in the request is expired'],
  ])('%s %s stays transient', async (status, type, message) => {
    const refused = await refusalFor(status, type, message);
    expect(refused).toBeInstanceOf(MailRefusedError);
    expect(refused).toMatchObject({ permanent: false, code: type });
  });
});

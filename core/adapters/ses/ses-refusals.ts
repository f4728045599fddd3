// Which SES SendEmail refusals are final (recorded failed once) and which pass (retried on the delivery schedule).
import { MailRefusedError } from '../../ports/mailer';
import { sdkErrorOf } from '../sdk-error';

/**
 * SES v2 SendEmail's errors (API reference, SendEmail "Errors"): the account, the sender or the recipient is not
 * allowed to send or receive this message, so sending it again without someone changing something cannot work.
 * InvalidParameterValue is SES v1's (and moto's) name for an address SES cannot parse.
 */
const permanentNames = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'AccountSuspendedException',
  'SendingPausedException',
  'BadRequestException',
  'InvalidParameterValue',
  'NotFoundException',
]);

/**
 * Sending limits that pass with time, whatever the error's name: "Maximum sending rate exceeded", "Daily message
 * quota exceeded" (SES sends these as Throttling in v1; v2 as TooManyRequestsException / LimitExceededException).
 */
const limitMessage = /rate exceeded|quota exceeded|throttl|too many requests/i;

/** What the sandbox (or an unverified sender) says; the reason then says what the operator must do. */
const notVerified = /not verified/i;

/** The refusal an SDK error is; anything that is not an answer from SES (network, timeout) stays a plain error. */
export function sesRefusalOf(err: unknown): MailRefusedError | undefined {
  const e = sdkErrorOf(err);
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined || !e.name) return undefined;
  const message = e.message ?? '';
  const permanent =
    permanentNames.has(e.name) && !limitMessage.test(message) && e.$fault !== 'server' && status < 500;
  const hint =
    permanent && notVerified.test(message)
      ? ' (in the SES sandbox mail goes only to verified addresses, and the sender must be a verified identity: the ' +
        'operator verifies it and requests production access)'
      : '';
  return new MailRefusedError(e.name, `SES refused the message: ${e.name}: ${message}${hint}`, permanent);
}

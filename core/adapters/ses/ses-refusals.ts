// Which SES SendEmail refusals are final (recorded failed once) and which pass (retried on the delivery schedule).
import { MailRefusedError } from '../../ports/mailer';
import { sdkErrorOf } from '../sdk-error';

/**
 * SES v2 SendEmail's errors (API reference, SendEmail "Errors"): the account, the sender or the recipient is not
 * allowed to send or receive this message, so sending it again without someone changing something cannot work.
 * InvalidParameterValue is SES v1's (and moto's) name for an address SES cannot parse. AccessDeniedException (AWS's
 * common error; AccessDenied in the query protocol moto answers with) is our own IAM policy refusing the call, such as
 * the stack's `ses:FromAddress` condition for another sender: a deploy fixes it, three days of retries do not.
 */
const permanentNames = new Set([
  'AccessDeniedException',
  'AccessDenied',
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
const accessDenied = /^AccessDenied/;

/** What the operator does about a permanent refusal, where SES's own words do not say. */
function hintFor(name: string, message: string): string {
  if (notVerified.test(message))
    return (
      ' (in the SES sandbox mail goes only to verified addresses, and the sender must be a verified identity: the ' +
      'operator verifies it and requests production access)'
    );
  if (accessDenied.test(name))
    return (
      " (the function's IAM policy does not allow this send: its ses:SendEmail grant names the stack's SES identity " +
      'and sender address, docs/deploy.md)'
    );
  return '';
}

/**
 * HTTP 403 is AWS's answer when our credentials or IAM policy refuse the call (AccessDeniedException, an endpoint
 * policy, a signature SES will not take), whatever form its body took: an answer the SDK could not read (moto answers
 * SES v2's AccessDenied in XML) is still one. Expired temporary credentials also answer 403, and pass: the SDK
 * fetches new ones.
 */
const forbidden = 403;
const expiredCredentials = /^(ExpiredToken|RequestExpired)/;

/** The refusal an SDK error is; anything that is not an answer from SES (network, timeout) stays a plain error. */
export function sesRefusalOf(err: unknown): MailRefusedError | undefined {
  const e = sdkErrorOf(err);
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined || !e.name) return undefined;
  // A service error carries its $fault; without one the SDK failed to read the answer and named its own parse error.
  const unreadable = e.$fault === undefined;
  const name = status === forbidden && unreadable ? 'AccessDenied' : e.name;
  const message = unreadable
    ? `HTTP ${status}, an answer the SDK could not read (${(e.message ?? '').split('\n')[0]})`
    : (e.message ?? '');
  const permanent =
    status === forbidden
      ? !expiredCredentials.test(name)
      : permanentNames.has(name) && !limitMessage.test(message) && e.$fault !== 'server' && status < 500;
  const hint = permanent ? hintFor(name, message) : '';
  return new MailRefusedError(name, `SES refused the message: ${name}: ${message}${hint}`, permanent);
}

// daily-js fatal error types → bot_join_failed error_type (docs/webhooks.md); the local room uses the same names.
import type { JoinErrorType } from '../schemas/webhooks';

const roomGone = new Set(['no-room', 'exp-room', 'nbf-room', 'end-of-life']);
const notAdmitted = new Set(['not-allowed', 'exp-token', 'nbf-token', 'ejected']);

export function joinErrorTypeOf(providerErrorType: string | undefined): JoinErrorType {
  if (providerErrorType && roomGone.has(providerErrorType)) return 'room_not_found';
  if (providerErrorType && notAdmitted.has(providerErrorType)) return 'auth_error';
  return 'unknown';
}

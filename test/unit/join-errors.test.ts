import { describe, expect, it } from 'vitest';
import { joinErrorTypeOf } from '../../core/bots/join-errors';

describe('join error mapping (spec §6.2)', () => {
  it.each([
    ['no-room', 'room_not_found'],
    ['exp-room', 'room_not_found'],
    ['nbf-room', 'room_not_found'],
    ['end-of-life', 'room_not_found'],
    ['not-allowed', 'auth_error'],
    ['exp-token', 'auth_error'],
    ['nbf-token', 'auth_error'],
    ['ejected', 'auth_error'],
    ['meeting-full', 'unknown'],
    ['connection-error', 'unknown'],
    [undefined, 'unknown'],
  ] as const)('%s → %s', (daily, ours) => {
    expect(joinErrorTypeOf(daily)).toBe(ours);
  });
});

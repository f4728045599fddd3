// daily-js's fatal errors during a call → the port's DisconnectKind. The browser tests check the same
// mapping end to end through the bot page; this one covers every type daily-js declares.
import type { DailyFatalErrorType } from '@daily-co/daily-js';
import { describe, expect, it } from 'vitest';
import { disconnectKindOf } from '../../bot-task/providers/daily/disconnect-kinds';
import type { DisconnectKind } from '../../core/ports/room-provider';

describe('disconnectKindOf', () => {
  // A Record so that a fatal type added to daily-js's typings fails tsc here too.
  const expected: Record<DailyFatalErrorType, DisconnectKind> = {
    ejected: 'ejected',
    'not-allowed': 'ejected',
    'exp-token': 'ejected',
    'nbf-token': 'ejected',
    'meeting-full': 'ejected',
    'no-room': 'room_ended',
    'exp-room': 'room_ended',
    'nbf-room': 'room_ended',
    'end-of-life': 'room_ended',
    'connection-error': 'connection_lost',
  };

  it.each(Object.entries(expected))('%s → %s', (type, kind) => {
    expect(disconnectKindOf({ type, msg: `daily says ${type}` })).toBe(kind);
  });

  it("an ejection by the room's time limit ('Meeting has ended') is the meeting ending, not an owner's ejection", () => {
    expect(disconnectKindOf({ type: 'ejected', msg: 'Meeting has ended' })).toBe('room_ended');
    expect(disconnectKindOf({ type: 'ejected', msg: 'You were removed from the call' })).toBe('ejected');
  });

  it('a call that ended with no fatal type daily-js names is a lost connection', () => {
    expect(disconnectKindOf(undefined)).toBe('connection_lost');
    expect(disconnectKindOf({ type: 'unknown', msg: 'something' })).toBe('connection_lost');
    expect(disconnectKindOf({ type: 'toString', msg: 'not an own key' })).toBe('connection_lost');
  });
});

// How long one join may take (bot-task/providers/join-limits.ts), shared by the Daily and local rooms: the join's
// timeout, the lobby's own that replaces it, and an abort that gives up at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinLimits } from '../../bot-task/providers/join-limits';
import { JoinAbortedError, type JoinOptions, RoomJoinError } from '../../core/ports/room-provider';

const options = (extra: Partial<JoinOptions> = {}): JoinOptions => ({
  roomUrl: 'https://acme.daily.co/standup',
  botName: 'Meeting Bot',
  videoMode: 'off',
  voice: 'Joanna',
  timeoutMs: 1000,
  waitingRoomTimeoutMs: 5000,
  ...extra,
});

describe('join limits', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives up after timeoutMs, naming the room when told how', () => {
    const given: Error[] = [];
    joinLimits(options(), (err) => given.push(err));
    joinLimits(options(), (err) => given.push(err), 'wss://rooms.local/standup');
    vi.advanceTimersByTime(999);
    expect(given).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(given.map((e) => [e instanceof RoomJoinError, (e as RoomJoinError).providerMessage])).toEqual([
      [true, 'timed out after 1000 ms joining the room'],
      [true, 'timed out after 1000 ms joining wss://rooms.local/standup'],
    ]);
  });

  it('in the lobby the lobby’s deadline replaces the join’s, and the caller is told once', () => {
    const given: Error[] = [];
    const onWaitingRoom = vi.fn();
    const limits = joinLimits(options({ onWaitingRoom }), (err) => given.push(err), 'the-room');
    vi.advanceTimersByTime(900);
    limits.lobby();
    expect(onWaitingRoom).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(4999);
    expect(given).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(given).toHaveLength(1);
    const err = given[0] as RoomJoinError;
    expect([err.type, err.providerMessage, err.code]).toEqual([
      'unknown',
      'not let in from the waiting room of the-room within 5 s',
      'waiting_room_timeout',
    ]);
  });

  it('an abort gives up at once (already aborted: during the call), and nothing after settled()', () => {
    const given: Error[] = [];
    joinLimits(options({ signal: AbortSignal.abort() }), (err) => given.push(err));
    expect(given).toHaveLength(1);
    expect(given[0]).toBeInstanceOf(JoinAbortedError);
    vi.advanceTimersByTime(10_000);
    expect(given).toHaveLength(1);

    const abort = new AbortController();
    const settled = joinLimits(options({ signal: abort.signal }), (err) => given.push(err));
    settled.settled();
    abort.abort();
    vi.advanceTimersByTime(10_000);
    expect(given).toHaveLength(1);
  });
});

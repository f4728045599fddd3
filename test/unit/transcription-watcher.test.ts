// The rule that ends a bot whose room transcription is unavailable, with fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RoomEventHub } from '../../bot-task/providers/room-events';
import { transcriptionWatcher } from '../../bot-task/watchers/transcription';
import { FakeRoom } from '../support/fake-room';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const recoveryMs = 30_000;

describe('the transcription watcher', () => {
  it('never started within the recovery time: unavailable, saying so', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const unavailable = vi.fn();
    transcriptionWatcher(room, recoveryMs, unavailable);
    vi.advanceTimersByTime(recoveryMs - 1);
    expect(unavailable).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(unavailable).toHaveBeenCalledExactlyOnceWith('it did not start within 30 s');
  });

  it('running: no failure however long the meeting', () => {
    const room = new FakeRoom();
    const unavailable = vi.fn();
    transcriptionWatcher(room, recoveryMs, unavailable);
    room.emit('transcription', { state: 'running', reason: 'started by the bot', ours: true });
    vi.advanceTimersByTime(10 * recoveryMs);
    expect(unavailable).not.toHaveBeenCalled();
  });

  it('fails and is not running again within the recovery time (counted from the failure): unavailable with the provider’s reason', () => {
    const room = new FakeRoom();
    const unavailable = vi.fn();
    transcriptionWatcher(room, recoveryMs, unavailable);
    room.emit('transcription', { state: 'running', reason: 'started by the bot' });
    vi.advanceTimersByTime(60_000);
    room.emit('transcription', { state: 'failed', reason: 'Daily transcription error: no rights' });
    vi.advanceTimersByTime(recoveryMs / 2);
    // Another failure (a retry refused) does not restart the clock.
    room.emit('transcription', { state: 'failed', reason: 'Daily transcription error: still no rights' });
    vi.advanceTimersByTime(recoveryMs / 2 - 1);
    expect(unavailable).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(unavailable).toHaveBeenCalledExactlyOnceWith(
      'Daily transcription error: still no rights; not running again within 30 s',
    );
  });

  it('fails, then runs again in time (a retry worked, or messages arrive): no failure', () => {
    for (const recover of ['event', 'message'] as const) {
      const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
      const unavailable = vi.fn();
      transcriptionWatcher(room, recoveryMs, unavailable);
      room.emit('transcription', { state: 'failed', reason: 'Daily transcription error: busy' });
      vi.advanceTimersByTime(recoveryMs - 1000);
      if (recover === 'event') room.emit('transcription', { state: 'running', reason: 'started by the bot' });
      else room.say('a', 'can you hear me', false);
      vi.advanceTimersByTime(5 * recoveryMs);
      expect(unavailable, recover).not.toHaveBeenCalled();
    }
  });

  it('the bot’s own transcribed words prove nothing: they do not count as running', () => {
    const room = new FakeRoom();
    const unavailable = vi.fn();
    transcriptionWatcher(room, recoveryMs, unavailable);
    room.say(room.selfId, 'Hello, I am the bot.');
    vi.advanceTimersByTime(recoveryMs);
    expect(unavailable).toHaveBeenCalledTimes(1);
  });

  it('stopped by a person in the room: their decision; the bot stays', () => {
    const room = new FakeRoom();
    const unavailable = vi.fn();
    transcriptionWatcher(room, recoveryMs, unavailable);
    room.emit('transcription', { state: 'running', reason: 'started by the bot' });
    room.emit('transcription', { state: 'stopped', reason: 'transcription stopped by Ann in the room' });
    vi.advanceTimersByTime(10 * recoveryMs);
    expect(unavailable).not.toHaveBeenCalled();
  });

  it('stopped watcher: never fires', () => {
    const room = new FakeRoom();
    const unavailable = vi.fn();
    transcriptionWatcher(room, recoveryMs, unavailable).stop();
    vi.advanceTimersByTime(10 * recoveryMs);
    expect(unavailable).not.toHaveBeenCalled();
  });

  it('a state reported while the bot was still joining reaches a listener added later (RoomEventHub)', async () => {
    const hub = new RoomEventHub();
    hub.emit('transcription', { state: 'failed', reason: 'first' });
    hub.emit('transcription', { state: 'failed', reason: 'latest' });
    const seen: string[] = [];
    hub.on('transcription', (t) => seen.push(t.reason));
    await Promise.resolve();
    expect(seen).toEqual(['latest']);
  });
});

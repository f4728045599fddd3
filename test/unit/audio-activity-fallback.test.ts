// Issue 20 §4: when no audio levels arrive for a while but transcription messages do, transcription timing stands in
// for audio activity (fake timers; the room sends no levels).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withActivityFallback } from '../../bot-task/audio-activity-fallback';
import { idleTimeoutWatcher } from '../../bot-task/watchers/idle-timeout';
import type { RoomEvents } from '../../core/ports/room-provider';
import { FakeRoom } from '../support/fake-room';
import { recordingLogger } from '../support/recording-logger';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const missingMs = 10_000;

function fallback(room: FakeRoom) {
  const logs: string[] = [];
  const heard = withActivityFallback(room, missingMs, recordingLogger(logs));
  const activity: RoomEvents['audio-activity'][] = [];
  heard.on('audio-activity', (a) => activity.push(a));
  return { heard, activity, logs };
}

describe('audio activity from transcription timing while audio levels are missing', () => {
  it('no levels for 10 s while transcription arrives: each message, interim or final, is its speaker’s activity', () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const f = fallback(room);
    vi.advanceTimersByTime(missingMs - 1);
    room.say('ann', 'still within the first ten seconds', false);
    expect(f.activity).toEqual([]);
    vi.advanceTimersByTime(1);
    room.say('ann', 'now the levels count as missing', false);
    room.say('ann', 'now the levels count as missing.', true);
    room.say(room.selfId, 'the bot’s own words are not activity');
    expect(f.activity).toEqual([
      { participantId: 'ann', active: true },
      { participantId: 'ann', active: true },
    ]);
    expect(f.logs.filter((l) => l.includes('activity from transcription timing'))).toHaveLength(1);
  });

  it('levels arriving: they are the activity, passed on as they come; transcription adds none', () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const f = fallback(room);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(missingMs - 1000);
      room.emit('audio-activity', { participantId: 'ann', active: true });
      room.say('ann', `line ${i}`);
    }
    expect(f.activity).toHaveLength(5);
  });

  it('levels coming back end the fallback', () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const f = fallback(room);
    vi.advanceTimersByTime(missingMs);
    room.say('ann', 'heard by transcription only');
    room.emit('audio-activity', { participantId: 'ann', active: true });
    room.say('ann', 'levels are back');
    expect(f.activity).toHaveLength(2);
    expect(f.logs.some((l) => l.includes('audio levels arrive again'))).toBe(true);
  });

  it('the idle timer is kept alive by transcription alone (no levels at all)', () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const f = fallback(room);
    const exit = vi.fn();
    idleTimeoutWatcher(f.heard, 60_000, exit);
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(50_000);
      room.say('ann', `still talking ${i}`, false);
    }
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(60_000);
    expect(exit).toHaveBeenCalledWith('idle_timeout');
  });
});

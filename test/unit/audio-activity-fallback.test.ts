// When no audio levels arrive for a while but transcription messages do, transcription timing stands in
// for audio activity (fake timers). Levels arriving is the provider's `audio-levels`, quiet or loud: silence is not
// missing levels. Each test reads the wrapped room's activity, so each fails without the wrapper.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withActivityFallback } from '../../bot-task/audio-activity-fallback';
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

  it('levels arriving but all quiet (no loud ones, so no audio-activity) for 10 s: not missing; no warning, no stand-in', () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const f = fallback(room);
    for (let i = 0; i < 3 * missingMs; i += 1000) {
      vi.advanceTimersByTime(1000);
      room.emit('audio-levels', {});
    }
    room.say('ann', 'said quietly, heard by transcription');
    expect(f.activity).toEqual([]);
    expect(f.logs.filter((l) => l.includes('activity from transcription timing'))).toEqual([]);
  });

  it('levels stop arriving: from 10 s later transcription stands in for them, once warned', () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const f = fallback(room);
    vi.advanceTimersByTime(5000);
    room.emit('audio-levels', {});
    vi.advanceTimersByTime(missingMs - 1);
    room.say('ann', 'levels only just stopped');
    expect(f.activity).toEqual([]);
    vi.advanceTimersByTime(1);
    room.say('ann', 'levels missing now');
    expect(f.activity).toEqual([{ participantId: 'ann', active: true }]);
    expect(f.logs.filter((l) => l.includes('activity from transcription timing'))).toHaveLength(1);
    room.emit('audio-levels', {});
    room.say('ann', 'levels are back');
    expect(f.activity).toHaveLength(1);
    expect(f.logs.some((l) => l.includes('audio levels arrive again'))).toBe(true);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forceLeaveWatcher } from '../../bot-task/watchers/force-leave';
import { idleTimeoutWatcher } from '../../bot-task/watchers/idle-timeout';
import { maxDurationWatcher } from '../../bot-task/watchers/max-duration';
import { participantLeftWatcher } from '../../bot-task/watchers/participant-left';
import { stopPhraseWatcher } from '../../bot-task/watchers/stop-phrase';
import { FakeRoom } from '../support/fake-room';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('participant_left', () => {
  it('fires when the last human leaves', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const exit = vi.fn();
    participantLeftWatcher(room, exit);
    room.join('b');
    room.leaveRoom('a');
    expect(exit).not.toHaveBeenCalled();
    room.leaveRoom('b');
    expect(exit).toHaveBeenCalledWith('participant_left');
  });

  it('does not fire before anyone came, nor for other bots or the bot itself', () => {
    const room = new FakeRoom();
    const exit = vi.fn();
    participantLeftWatcher(room, exit);
    room.join('rec', 'Recorder', true);
    room.leaveRoom('rec');
    room.leaveRoom(room.selfId);
    room.leaveRoom('stranger');
    expect(exit).not.toHaveBeenCalled();
    room.join('h');
    room.join('rec2', 'Other bot', true);
    room.leaveRoom('h');
    expect(exit).toHaveBeenCalledTimes(1);
  });
});

describe('stop_phrase', () => {
  it('fires on a participant’s final utterance, split across chunks, not on partials or the bot’s own speech', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const exit = vi.fn();
    stopPhraseWatcher(room, 'That is all, bot', exit);
    room.say(room.selfId, 'that is all bot');
    room.say('a', 'that is all bot', false);
    expect(exit).not.toHaveBeenCalled();
    room.say('a', 'OK. That is al');
    room.say('a', 'l, Bot!');
    expect(exit).toHaveBeenCalledWith('stop_phrase');
  });

  it('is inert without a stop phrase', () => {
    const room = new FakeRoom();
    const exit = vi.fn();
    stopPhraseWatcher(room, undefined, exit);
    room.say('a', 'stop');
    expect(exit).not.toHaveBeenCalled();
  });
});

describe('idle_timeout', () => {
  it('fires after the timeout without activity from others; their activity re-arms it, the bot’s does not', () => {
    const room = new FakeRoom();
    const exit = vi.fn();
    idleTimeoutWatcher(room, 300_000, exit);
    vi.advanceTimersByTime(299_000);
    room.emit('audio-activity', { participantId: 'a', active: true });
    vi.advanceTimersByTime(299_000);
    room.say('a', 'hello');
    vi.advanceTimersByTime(299_000);
    room.emit('audio-activity', { participantId: room.selfId, active: true });
    room.say(room.selfId, 'I am the bot');
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(exit).toHaveBeenCalledWith('idle_timeout');
  });

  it('stops', () => {
    const room = new FakeRoom();
    const exit = vi.fn();
    idleTimeoutWatcher(room, 1000, exit).stop();
    vi.advanceTimersByTime(5000);
    expect(exit).not.toHaveBeenCalled();
  });
});

describe('force_leave', () => {
  it('polls the session at the interval and fires once the stop request is there', async () => {
    let requested = false;
    const poll = vi.fn(async () => requested);
    const exit = vi.fn();
    const w = forceLeaveWatcher(poll, 500, exit, () => {});
    await vi.advanceTimersByTimeAsync(1000);
    expect(poll).toHaveBeenCalledTimes(2);
    expect(exit).not.toHaveBeenCalled();
    requested = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(exit).toHaveBeenCalledWith('force_leave');
    w.stop();
  });

  it('survives a failing poll', async () => {
    const onError = vi.fn();
    const exit = vi.fn();
    const w = forceLeaveWatcher(async () => Promise.reject(new Error('throttled')), 100, exit, onError);
    await vi.advanceTimersByTimeAsync(250);
    expect(onError).toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
    w.stop();
  });
});

describe('max_duration', () => {
  it('fires at the cap', () => {
    const exit = vi.fn();
    maxDurationWatcher(60_000, exit);
    vi.advanceTimersByTime(59_999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith('max_duration');
  });
});

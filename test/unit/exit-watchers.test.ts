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

describe('participant_left after the everyone-left timeout', () => {
  it('a participant who drops and comes back within the timeout does not end the session', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const exit = vi.fn();
    participantLeftWatcher(room, exit, { everyoneLeftTimeoutMs: 2000 });
    room.leaveRoom('a');
    vi.advanceTimersByTime(1000);
    // A dropped connection comes back as a new participant: presence counts, not identity.
    room.join('a-again', 'Ann');
    vi.advanceTimersByTime(10_000);
    expect(exit).not.toHaveBeenCalled();
  });

  it('ends once everyone has stayed away for the timeout, counted from the last departure', () => {
    const room = new FakeRoom([
      { participantId: 'a', name: 'Ann' },
      { participantId: 'b', name: 'Bob' },
    ]);
    const exit = vi.fn();
    participantLeftWatcher(room, exit, { everyoneLeftTimeoutMs: 2000 });
    room.leaveRoom('a');
    vi.advanceTimersByTime(1500);
    room.leaveRoom('b');
    vi.advanceTimersByTime(1999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledExactlyOnceWith('participant_left');
  });

  it('each return restarts the wait: leaving again after a return waits the whole timeout again', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const exit = vi.fn();
    participantLeftWatcher(room, exit, { everyoneLeftTimeoutMs: 2000 });
    room.leaveRoom('a');
    vi.advanceTimersByTime(1900);
    room.join('a2', 'Ann');
    room.leaveRoom('a2');
    vi.advanceTimersByTime(1900);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it('another bot joining does not keep the session going', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const exit = vi.fn();
    participantLeftWatcher(room, exit, { everyoneLeftTimeoutMs: 2000 });
    room.leaveRoom('a');
    room.join('rec', 'Recorder', true);
    vi.advanceTimersByTime(1999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith('participant_left');
  });

  it('stopped while waiting, it never fires', () => {
    const room = new FakeRoom([{ participantId: 'a', name: 'Ann' }]);
    const exit = vi.fn();
    const w = participantLeftWatcher(room, exit, { everyoneLeftTimeoutMs: 2000 });
    room.leaveRoom('a');
    w.stop();
    vi.advanceTimersByTime(5000);
    expect(exit).not.toHaveBeenCalled();
  });

  it('a replacement finding an empty room waits the longer of its grace and the timeout', () => {
    const room = new FakeRoom();
    const exit = vi.fn();
    participantLeftWatcher(room, exit, { emptyRoomGraceMs: 2000, everyoneLeftTimeoutMs: 5000 });
    vi.advanceTimersByTime(4999);
    expect(exit).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(exit).toHaveBeenCalledWith('participant_left');
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

// The room connection's events (bot-task/providers/room-events.ts): a disconnection before the bot listened is not
// lost. Under load, the local room ejected a bot in the moment between its join and its watchers (replacement.test.ts
// "ejected with nobody else in the room" then waited for an end that never came).
import { describe, expect, it } from 'vitest';
import { RoomEventHub } from '../../bot-task/providers/room-events';

describe('room events', () => {
  it('a disconnection before anyone listened is told to each later listener, once, after on() returns', async () => {
    const hub = new RoomEventHub();
    hub.emit('participant-left', { participantId: 'p1' });
    hub.emit('disconnected', { kind: 'ejected', reason: 'removed by the owner' });
    hub.emit('disconnected', { kind: 'connection_lost', reason: 'the socket closed behind it' });
    const heard: unknown[] = [];
    const left: unknown[] = [];
    hub.on('participant-left', (p) => left.push(p));
    hub.on('disconnected', (p) => heard.push(p));
    expect(heard).toEqual([]);
    await Promise.resolve();
    expect(heard).toEqual([{ kind: 'ejected', reason: 'removed by the owner' }]);
    // Only the disconnection is remembered: other events are the moment's (participants() has the state).
    expect(left).toEqual([]);
  });

  it('a listener added before hears the first disconnection as it happens, and no later one', async () => {
    const hub = new RoomEventHub();
    const heard: unknown[] = [];
    hub.on('disconnected', (p) => heard.push(p));
    hub.emit('disconnected', { kind: 'room_ended', reason: 'the room was deleted' });
    // The socket's close right behind the room's message is the same disconnection.
    hub.emit('disconnected', { kind: 'connection_lost', reason: 'room connection closed (1000 )' });
    await Promise.resolve();
    expect(heard).toEqual([{ kind: 'room_ended', reason: 'the room was deleted' }]);
  });

  it('utterances heard before anyone listened go, in order, to the first listener (a transcript loses no line)', async () => {
    const hub = new RoomEventHub();
    // The room's welcome and the first words can arrive in one socket read, before the bot attaches its listener.
    const say = (text: string) =>
      hub.emit('utterance', {
        participantId: 'ada',
        name: 'Ada',
        text,
        final: true,
        at: new Date().toISOString(),
      });
    say('First point: we ship on Friday.');
    say('Second point: Ben writes the notes.');
    const transcript: string[] = [];
    const later: string[] = [];
    hub.on('utterance', (u) => transcript.push(u.text));
    expect(transcript).toEqual([]);
    await Promise.resolve();
    say('Third point.');
    hub.on('utterance', (u) => later.push(u.text));
    await Promise.resolve();
    expect(transcript).toEqual([
      'First point: we ship on Friday.',
      'Second point: Ben writes the notes.',
      'Third point.',
    ]);
    // Told once: a later listener hears what comes from its time on.
    say('Fourth point.');
    expect(later).toEqual(['Fourth point.']);
  });
});

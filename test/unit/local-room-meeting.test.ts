// What the local room tells a joiner and its members about the meeting under way: only this meeting's words (a
// room like `demo` outlives its meetings), who records, and a line that was cut off.
import { describe, expect, it } from 'vitest';
import { Room, type RoomEvent } from '../../local/room/room';

describe('the local room and its meetings', () => {
  it('a joiner sees the words of the meeting under way only, not those of an earlier meeting in the same room', () => {
    let t = 1_000;
    const room = new Room('demo', false, () => t);
    const ann = room.join('Ann', 'human', () => {});
    room.say(ann.id, 'Yesterday I talked about my salary.');
    t += 1_000;
    room.leave(ann.id);
    // A scripted participant alone does not start a meeting.
    t += 60_000;
    const script = room.join('Script', 'scripted', () => {});
    room.say(script.id, 'Said to an empty room.');
    t += 1_000;
    const bob = room.join('Bob', 'human', () => {});
    room.say(bob.id, 'Hello, is anyone here?');
    const texts = room.meetingLog(200).flatMap((e) => (e.type === 'utterance' ? [e.text] : []));
    expect(texts).toEqual(['Hello, is anyone here?']);
    // While the meeting goes on, a later joiner sees all of it, up to the limit.
    t += 1_000;
    room.join('Cleo', 'human', () => {});
    expect(room.meetingLog(200).filter((e) => e.type === 'utterance')).toHaveLength(1);
    expect(room.meetingLog(1)).toHaveLength(1);
  });

  it('tells everyone when a bot starts and stops recording, and when a line was cut off', () => {
    const room = new Room('r', false);
    const seen: RoomEvent[] = [];
    room.join('Ann', 'human', (e) => seen.push(e));
    const bot = room.join('Iris', 'bot', () => {});
    expect(room.recorders).toEqual([]);
    room.listen(bot.id, () => {});
    room.listen(bot.id, () => {});
    expect(room.recorders).toEqual([bot.id]);
    room.speaking(bot.id, true);
    room.speaking(bot.id, false, true);
    room.speaking(bot.id, true);
    room.speaking(bot.id, false);
    room.leave(bot.id);
    const relevant = seen.filter((e) => e.type === 'recording' || e.type === 'speaking');
    expect(relevant.map((e) => ({ ...e, at: undefined }))).toEqual([
      { type: 'recording', participant_id: bot.id, active: true, at: undefined },
      { type: 'speaking', participant_id: bot.id, active: true, at: undefined },
      { type: 'speaking', participant_id: bot.id, active: false, cut: true, at: undefined },
      { type: 'speaking', participant_id: bot.id, active: true, at: undefined },
      { type: 'speaking', participant_id: bot.id, active: false, at: undefined },
      { type: 'recording', participant_id: bot.id, active: false, at: undefined },
    ]);
  });
});

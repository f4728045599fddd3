// The local room relays microphones: a person's binary messages (16 kHz PCM) reach only the bots that asked to listen
// (a recording bot's `listen`), framed with the sender's id, never the sender itself nor the people; an oversized
// message is dropped. Over the real room server's WebSocket.
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { maxAudioBytes } from '../../local/room/room';
import { roomServersPerTest } from '../support/room-server';
import { quietFor, until } from '../support/until';

const { cleanups, startRooms } = roomServersPerTest();

async function member(base: string, name: string, kind: 'human' | 'bot') {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/rooms/talk/ws?name=${name}&kind=${kind}`);
  cleanups.push(() => ws.terminate());
  const audio: { from: string; pcm: Buffer }[] = [];
  const messages: { type: string; active?: boolean }[] = [];
  let id = '';
  ws.on('message', (data, isBinary) => {
    const bytes = data as Buffer;
    if (isBinary) {
      const n = bytes[0]!;
      audio.push({ from: bytes.subarray(1, 1 + n).toString(), pcm: bytes.subarray(1 + n) });
    } else {
      const msg = JSON.parse(String(bytes));
      messages.push(msg);
      if (msg.type === 'welcome') id = msg.participant_id;
    }
  });
  await until(() => id, 5000);
  return { ws, audio, messages, id };
}

describe('local room: microphone audio', () => {
  it('reaches the bots that listen, with the sender’s id; not the sender, the people or other bots', async () => {
    const { rooms, base } = await startRooms();
    rooms.createRoom('talk', false);
    const recorder = await member(base, 'Scribe', 'bot');
    const other = await member(base, 'Other', 'bot');
    const ada = await member(base, 'Ada', 'human');
    const bob = await member(base, 'Bob', 'human');
    recorder.ws.send(JSON.stringify({ type: 'listen', audio: true }));
    // The room handles `listen` when it arrives: audio sent on another socket before then is not relayed. The room
    // tells everyone once it has (the page's recording notice).
    await until(() => ada.messages.some((m) => m.type === 'recording' && m.active), 5000);

    const pcm = Buffer.alloc(3200);
    for (let i = 0; i < 1600; i++) pcm.writeInt16LE(Math.round(Math.sin(i / 5) * 10_000), i * 2);
    ada.ws.send(pcm);
    ada.ws.send(Buffer.alloc(maxAudioBytes + 2)); // too big: dropped
    ada.ws.send(pcm.subarray(0, 320));
    await until(() => recorder.audio.length >= 2, 5000);
    // Nothing more: the oversized piece is dropped, and no one else gets any.
    await quietFor(200);

    expect(recorder.audio.map((a) => a.from)).toEqual([ada.id, ada.id]);
    expect(recorder.audio[0]!.pcm.equals(pcm)).toBe(true);
    expect(recorder.audio[1]!.pcm.length).toBe(320);
    expect(other.audio).toEqual([]);
    expect(ada.audio).toEqual([]);
    expect(bob.audio).toEqual([]);
    // Audio is relayed, never kept in the room's log.
    expect(rooms.rooms.get('talk')!.log.some((e) => e.type !== 'joined')).toBe(false);
  });
});

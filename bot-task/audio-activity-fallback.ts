// Audio activity the bot can rely on: while Daily's raw `audio-levels` (quiet ones too) are missing for
// AUDIO_LEVELS_MISSING_MS and transcription messages arrive, each message counts as its speaker's activity.
import { EventEmitter } from 'node:events';
import type { Logger } from '../core/log';
import type { RoomConnection, RoomEventName, RoomEvents } from '../core/ports/room-provider';

/** `room` with its `audio-activity` completed from transcription timing while audio levels are missing. */
export function withActivityFallback(
  room: RoomConnection,
  missingMs: number,
  log: Pick<Logger, 'info' | 'warn'>,
  now: () => number = Date.now,
): RoomConnection {
  const activity = new EventEmitter();
  let lastLevelAt = now();
  let fallingBack = false;
  const levelsArrive = () => {
    lastLevelAt = now();
    if (fallingBack) {
      fallingBack = false;
      log.info('audio levels arrive again; activity from them');
    }
  };
  room.on('audio-levels', levelsArrive);
  room.on('audio-activity', (a) => {
    levelsArrive();
    activity.emit('audio-activity', a);
  });
  room.on('utterance', (u) => {
    if (u.participantId === room.selfId || now() - lastLevelAt < missingMs) return;
    if (!fallingBack) {
      fallingBack = true;
      log.warn('no audio levels while transcription arrives; activity from transcription timing', {
        missing_ms: now() - lastLevelAt,
      });
    }
    activity.emit('audio-activity', { participantId: u.participantId, active: true });
  });
  return {
    get selfId() {
      return room.selfId;
    },
    speech: room.speech,
    participants: () => room.participants(),
    leave: (options) => room.leave(options),
    on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void) {
      if (event === 'audio-activity') activity.on(event, listener);
      else room.on(event, listener);
    },
  };
}

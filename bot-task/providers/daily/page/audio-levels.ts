// Who is speaking, from daily-js's audio levels of the remote participants: told to Node as `audio-activity`.
import type { DailyEventObjectRemoteParticipantsAudioLevel } from '@daily-co/daily-js';
import { emit } from './node-channel';

/** Audio level above which a remote participant counts as active (daily-js reports 0..1). */
const activityLevel = 0.02;
/** How often at most Node is told that audio levels arrive (`audio-levels`). */
const levelsHeartbeatMs = 1000;

let lastLevelsAt = 0;
/** When each one's activity was last told, or 0 after a quiet level: speech resuming after a pause is told at once. */
const lastActivity = new Map<string, number>();

export function heardLevels(e: DailyEventObjectRemoteParticipantsAudioLevel): void {
  const now = Date.now();
  if (now - lastLevelsAt >= levelsHeartbeatMs) {
    lastLevelsAt = now;
    emit({ type: 'audio-levels' });
  }
  for (const [id, level] of Object.entries(e.participantsAudioLevel)) {
    if (level < activityLevel) {
      lastActivity.set(id, 0);
      continue;
    }
    if (now - (lastActivity.get(id) ?? 0) < 1000) continue;
    lastActivity.set(id, now);
    emit({ type: 'audio-activity', participantId: id, active: true });
  }
}

// Use case: a session's recording, as a short-lived download address (the file never passes through the API).
import type { Caller } from '../accounts/authenticate';
import type { ServiceDeps } from '../deps';
import { ApiError } from '../errors';
import type { RecordingView } from '../schemas/bot-views';
import { findOwnSession } from './get-status';
import { recordsAudio } from './session';

/**
 * How long after a recorded session failed its pieces are taken to be still assembling (the results stage does it
 * within seconds; its queue retries for minutes). Later, a failed session without a file has none: 404, not 409.
 */
export const failedAssemblyWindowMs = 30 * 60_000;

export async function getRecording(
  deps: ServiceDeps,
  caller: Caller,
  rawBotId: string | undefined,
): Promise<RecordingView> {
  const session = await findOwnSession(deps, caller, rawBotId);
  // Gone for good, whatever the item still says (a deletion's last step removes the file's description): never a link
  // to an object that no longer exists.
  if (session.dataDeletedAt)
    throw new ApiError(
      'data_deleted',
      `the content of bot session ${session.botId} was deleted at ${session.dataDeletedAt}`,
    );
  const file = session.recordingFile;
  if (!file) {
    if (!recordsAudio(session))
      throw new ApiError(
        'not_found',
        `bot session ${session.botId} was not recorded (start it with recording.audio)`,
        { message: 'This session has no recording.' },
      );
    // A failed session's pieces are assembled after it failed: until then, or until that fails (a warning), not ready.
    const failedAt = Date.parse(session.completedAt ?? '');
    const assembling =
      session.status === 'failed' &&
      Boolean(session.joinedAt) &&
      deps.now().getTime() - failedAt < failedAssemblyWindowMs &&
      !session.warnings?.some((w) => w.code === 'recording_failed');
    if (session.status === 'running' || assembling)
      throw new ApiError(
        'recording_not_ready',
        `the recording of bot session ${session.botId} is not ready yet`,
      );
    throw new ApiError(
      'not_found',
      `bot session ${session.botId} ended without a recording (see its warnings)`,
      { message: 'This session has no recording.' },
    );
  }
  const link = await deps
    .recordings()
    .link(session.botId, deps.config.RECORDING_LINK_TTL_SECONDS, deps.now());
  return {
    url: link.url,
    expires_at: link.expiresAt.toISOString(),
    content_type: 'audio/webm',
    duration_seconds: file.durationSeconds,
    size_bytes: file.sizeBytes,
    gaps: file.gaps.map((g) => ({ at_seconds: g.atSeconds, seconds: g.seconds })),
  };
}

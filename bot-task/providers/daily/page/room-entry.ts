// Getting the bot's call into its Daily room: the call's options, the join, a knocking room's lobby, what it receives.
import type {
  DailyAccess,
  DailyCall,
  DailyCallOptions,
  DailyEventObjectAccessState,
} from '@daily-co/daily-js';
import { emit, log, messageOf } from './node-channel';

export type JoinFailure = { ok: false; errorType: string; message: string };
type Fatal = () => { type: string; msg: string } | undefined;

/**
 * The object handed to `Daily.createCallObject`. daily-js validates every key that is present, even one whose
 * value is undefined (`property 'token': token should be a string`, dist/daily-esm.js `validateProperties`), so a
 * key is only set when it has a value: a public room is joined without `token` (an empty token is no token).
 */
export function callOptions(
  o: { url: string; token?: string; userName: string },
  tracks: { audio: MediaStreamTrack; video: MediaStreamTrack | false },
): DailyCallOptions {
  return {
    url: o.url,
    ...(o.token ? { token: o.token } : {}),
    userName: o.userName,
    audioSource: tracks.audio,
    videoSource: tracks.video,
    startVideoOff: tracks.video === false,
    // The bot chooses what it receives: each participant's audio, never video (subscribeToAudio).
    subscribeToTracksAutomatically: false,
  };
}

/** Joins, and waits in the lobby of a knocking room until the bot is let in; `fatal`: daily-js's fatal error, if any. */
export async function enterRoom(
  call: DailyCall,
  name: string,
  fatal: Fatal,
): Promise<{ ok: true } | JoinFailure> {
  try {
    await call.join();
  } catch (err) {
    // The fatal `error` event carries Daily's type; it can arrive just after the rejection.
    await new Promise((r) => setTimeout(r, 50));
    return { ok: false, errorType: fatal()?.type ?? 'unknown', message: fatal()?.msg ?? messageOf(err) };
  }
  return levelOf(call.accessState().access) === 'lobby' ? waitInLobby(call, name, fatal) : { ok: true };
}

const levelOf = (access: DailyAccess) => (access === 'unknown' ? 'unknown' : access.level);

/**
 * A knocking room (`enable_knocking`) lets a joiner without a token in at access level `lobby`; the bot asks for full
 * access (https://docs.daily.co/docs/daily-js/guides/waiting-room). `access-state-updated` to `full` grants it; a
 * denial resolves requestAccess() `granted: false` and ejects with a fatal `not-allowed`. Node bounds the wait.
 */
function waitInLobby(c: DailyCall, name: string, fatal: Fatal) {
  return new Promise<{ ok: true } | JoinFailure>((resolve) => {
    const granted = (e: DailyEventObjectAccessState) => {
      if (levelOf(e.access) === 'full') done({ ok: true });
    };
    const failed = () =>
      done({ ok: false, errorType: fatal()?.type ?? 'unknown', message: fatal()?.msg ?? 'left the lobby' });
    const done = (outcome: { ok: true } | JoinFailure) => {
      c.off('access-state-updated', granted);
      c.off('error', failed);
      c.off('left-meeting', failed);
      resolve(outcome);
    };
    c.on('access-state-updated', granted);
    c.on('error', failed);
    c.on('left-meeting', failed);
    emit({ type: 'waiting-room' });
    c.requestAccess({ name, access: { level: 'full' } }).then(
      (answer) =>
        done(
          answer.granted
            ? { ok: true }
            : {
                ok: false,
                errorType: 'not-allowed',
                message: fatal()?.msg ?? 'the room denied the bot entry from its waiting room',
              },
        ),
      (err: unknown) =>
        done({ ok: false, errorType: 'unknown', message: `asking to be let in failed: ${messageOf(err)}` }),
    );
  });
}

/**
 * Each participant's audio, their screen share's too (for the recording), never their video: audio levels need the
 * audio received, and video would cost CPU for nothing (the transcription is Daily's, from its own tracks).
 */
export function subscribeToAudio(c: DailyCall, sessionId: string) {
  try {
    c.updateParticipant(sessionId, {
      setSubscribedTracks: { audio: true, screenAudio: true, video: false, screenVideo: false },
    });
  } catch (err) {
    log('warn', `could not subscribe to ${sessionId}'s audio: ${messageOf(err)}`);
  }
}

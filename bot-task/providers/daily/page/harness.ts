// The bot's Chromium page (bundled by page-assets.ts): drives daily-js, loaded from our origin, with the page's parts.
import type {
  DailyCall,
  DailyCallFactory,
  DailyEventObjectFatalError,
  DailyEventObjectNetworkConnectionEvent,
  DailyEventObjectParticipant,
  DailyEventObjectParticipantLeft,
  DailyEventObjectTrack,
} from '@daily-co/daily-js';
import { within } from '../../../../core/within';
import { disconnectKindOf } from '../disconnect-kinds';
import { heardLevels } from './audio-levels';
import { CallRecorder } from './call-recorder';
import { emit, log, messageOf } from './node-channel';
import { callOptions, enterRoom, type JoinFailure, subscribeToAudio } from './room-entry';
import {
  botAudio,
  closeAudio,
  endAudio,
  microphoneTrack,
  openAudio,
  pushAudio,
  stopSpeech,
} from './speech-player';
import { stopTile, tileTrack } from './tile';
import { roomTranscription, type TranscriptionSettings } from './transcription';

export type { HarnessEvent } from './node-channel';

export interface HarnessJoinOptions extends TranscriptionSettings {
  url: string;
  token?: string | undefined;
  userName: string;
  videoMode: 'static' | 'off';
  /** A data: URL of the tile image, already fetched and checked in Node. */
  imageDataUrl?: string | undefined;
}

export type HarnessJoinResult =
  | { ok: true; selfId: string; participants: { participantId: string; name: string }[] }
  | JoinFailure;

declare global {
  interface Window {
    bot: {
      /** Resolves once daily-js is loaded, rejects when it cannot be. */
      ready(): Promise<void>;
      join(o: HarnessJoinOptions): Promise<HarnessJoinResult>;
      /** `keepTranscription`: leave a transcription the bot started running (its replacement uses it). */
      leave(keepTranscription?: boolean): Promise<void>;
      openAudio(line: number, sampleRate: number): void;
      pushAudio(line: number, pcmBase64: string): void;
      endAudio(line: number): Promise<'done' | 'interrupted'>;
      stopSpeech(): void;
      /** Sends a line as a chat message to everyone in the call (the bot's voice failed). */
      sendText(text: string, name: string): void;
      /** Records the call's mixed audio, a `recording-piece` every `pieceMs`; resolves with its start (epoch ms). */
      startRecording(pieceMs: number): Promise<number>;
      stopRecording(): Promise<void>;
      /** What the tile shows (for tests and logs). */
      tile?: 'image' | 'name-card' | 'off';
    };
  }
}

let call: DailyCall | undefined;
let leaving = false;
let transcription: ReturnType<typeof roomTranscription> | undefined;
let recorder: CallRecorder | undefined;

/** A line as an app message in Daily Prebuilt's chat shape (`chat-msg`); Daily caps one app message at 4 KB. */
function sendText(text: string, name: string): void {
  if (!call) throw new Error('not in a call');
  call.sendAppMessage({ event: 'chat-msg', message: text.slice(0, 3000), name, room: 'main-room' }, '*');
}

async function startRecording(pieceMs: number): Promise<number> {
  const audio = botAudio();
  if (!call || !audio) throw new Error('not in a call');
  if (recorder) throw new Error('already recording');
  recorder = await CallRecorder.start({
    ...audio,
    participants: () => Object.values(call?.participants() ?? {}),
    pieceMs,
    send: async (seq, data) => {
      await window.__botEvent?.({ type: 'recording-piece', seq, data });
    },
    warn: (message, err) => log('warn', err === undefined ? message : `${message}: ${messageOf(err)}`),
  });
  return Date.now();
}

function stopRecording(): Promise<void> {
  return recorder?.stop() ?? Promise.resolve();
}

// daily-js loads with the page, not on join: a page prepared ahead of its room (a pooled bot) has it ready. A failure
// is seen by ready() and join(), not as an unhandled rejection.
const dailyModuleUrl = '/vendor/daily-esm.js';
const daily: Promise<DailyCallFactory> = import(/* @vite-ignore */ dailyModuleUrl).then((m) => m.default);
daily.catch(() => {});

async function join(o: HarnessJoinOptions): Promise<HarnessJoinResult> {
  const Daily = await daily;
  window.bot.tile = 'off';
  let fatal: { type: string; msg: string } | undefined;
  let joined = false;
  let disconnected = false;
  // daily-js is already in meetingState 'error' when it emits a fatal `error` (`_handleFatalError`), so the state
  // cannot tell whether we were in the call; `left-meeting` is documented to follow but does not always (not after
  // a failed load). We report whichever comes first, once, and only for a call we had joined.
  const disconnect = () => {
    if (!joined || leaving || disconnected) return;
    disconnected = true;
    emit({
      type: 'disconnected',
      kind: disconnectKindOf(fatal),
      reason: fatal ? `${fatal.type}: ${fatal.msg}` : 'left the meeting',
    });
  };
  const audio = microphoneTrack();
  const tile = o.videoMode === 'off' ? undefined : await tileTrack(o.userName, o.imageDataUrl);
  if (tile) window.bot.tile = tile.shows;
  const c = Daily.createCallObject(callOptions(o, { audio, video: tile?.track ?? false }));
  call = c;
  const heard = roomTranscription(c, o, () => joined && !leaving && !disconnected);
  transcription = heard;

  c.on('error', (e: DailyEventObjectFatalError) => {
    fatal = { type: e.error?.type ?? 'unknown', msg: e.error?.msg ?? e.errorMsg };
    disconnect();
  });
  c.on('left-meeting', disconnect);
  // An interrupted connection is daily-js's to recover: it reconnects on its own (signaling within about 20 s,
  // https://docs.daily.co/reference/daily-js/events/network-events), and only a fatal `connection-error` means it
  // gave up. So an interruption is logged, never reported as a disconnection.
  c.on('network-connection', (e: DailyEventObjectNetworkConnectionEvent) =>
    log(e.event === 'interrupted' ? 'warn' : 'info', `network connection ${e.event} (${e.type})`),
  );
  c.on('participant-joined', (e: DailyEventObjectParticipant) => {
    if (e.participant.local) return;
    heard.remember(e.participant);
    subscribeToAudio(c, e.participant.session_id);
    emit({
      type: 'participant-joined',
      participantId: e.participant.session_id,
      name: e.participant.user_name || 'Guest',
    });
  });
  c.on('participant-updated', (e: DailyEventObjectParticipant) => {
    if (e.participant.local) return;
    heard.remember(e.participant);
    recorder?.add(e.participant);
  });
  c.on('track-started', (e: DailyEventObjectTrack) => {
    if (e.track?.kind === 'audio') recorder?.add(e.participant ?? undefined);
  });
  c.on('participant-left', (e: DailyEventObjectParticipantLeft) => {
    recorder?.forget(e.participant.session_id);
    heard.settle(e.participant.session_id);
    emit({ type: 'participant-left', participantId: e.participant.session_id });
    heard.left(e.participant.session_id);
  });
  c.on('remote-participants-audio-level', heardLevels);

  const entered = await enterRoom(c, o.userName, () => fatal);
  if (!entered.ok) return entered;
  joined = true;
  const everyone = Object.values(c.participants());
  const self = everyone.find((p) => p.local);
  const others = everyone.filter((p) => !p.local);
  for (const p of others) {
    heard.remember(p);
    subscribeToAudio(c, p.session_id);
  }
  heard.joined();
  // Rejects with `{ error }`, not an Error, when the call machine refuses.
  await Promise.resolve(c.startRemoteParticipantsAudioLevelObserver(200)).catch((err: unknown) =>
    log('warn', `audio levels not observed: ${messageOf(err)}`),
  );
  // Thrown out while starting those: a failed join, not a connection whose disconnection nobody heard yet.
  if (disconnected)
    return { ok: false, errorType: fatal?.type ?? 'unknown', message: fatal?.msg ?? 'left the meeting' };
  return {
    ok: true,
    selfId: self?.session_id ?? 'self',
    participants: others.map((p) => ({ participantId: p.session_id, name: p.user_name || 'Guest' })),
  };
}

async function leave(keepTranscription = false): Promise<void> {
  leaving = true;
  stopSpeech();
  transcription?.settleAll();
  await within(stopRecording(), 3000).catch(() => {});
  stopTile();
  if (!call) return;
  transcription?.leave(keepTranscription);
  // The promises leave() and destroy() return can hang: bounded, then the browser is closed anyway.
  await within(call.leave(), 5000).catch(() => {});
  await within(call.destroy(), 3000).catch(() => {});
  await closeAudio();
}

window.bot = {
  ready: () => daily.then(() => {}),
  join,
  leave,
  openAudio,
  pushAudio,
  endAudio,
  stopSpeech,
  sendText,
  startRecording,
  stopRecording,
};

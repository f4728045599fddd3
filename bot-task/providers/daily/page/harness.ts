// Runs inside the bot's Chromium page: drives daily-js and forwards room events to Node through `__botEvent`.
// Bundled by esbuild (page-assets.ts); daily-js itself is loaded from our origin at /vendor/daily-esm.js.
import type {
  DailyAccess,
  DailyCall,
  DailyCallFactory,
  DailyCallOptions,
  DailyEventObjectAccessState,
  DailyEventObjectFatalError,
  DailyEventObjectNetworkConnectionEvent,
  DailyEventObjectParticipant,
  DailyEventObjectParticipantLeft,
  DailyEventObjectRemoteParticipantsAudioLevel,
  DailyEventObjectTrack,
  DailyEventObjectTranscriptionError,
  DailyEventObjectTranscriptionMessage,
  DailyEventObjectTranscriptionStarted,
  DailyEventObjectTranscriptionStopped,
  DailyParticipant,
} from '@daily-co/daily-js';
import type { RoomEvents } from '../../../../core/ports/room-provider';
import { disconnectKindOf } from '../disconnect-kinds';
import { CallRecorder } from './call-recorder';
import { sendsInterims, TranscriptFinality } from './transcript-finality';

export interface HarnessJoinOptions {
  url: string;
  token?: string;
  userName: string;
  videoMode: 'static' | 'off';
  /** A data: URL of the tile image, already fetched and checked in Node. */
  imageDataUrl?: string;
  /** Transcription language, a Deepgram code (bot_config.language). */
  language: string;
  /** Deepgram's endpointing in ms (the silence that finalizes words); absent: Deepgram's default. */
  endpointingMs?: number;
  /** Ask for Deepgram's interim results (`interim_results`); absent: finals only. */
  interimResults?: boolean;
  /** While the room's transcription is not running, how often the bot tries to start it again. */
  transcriptionRetryMs: number;
  /**
   * How long a participant who stopped the transcription has to leave the room for the stop to count as a departing
   * bot's (restarted), not a person's decision (left stopped).
   */
  stopperLeaveGraceMs?: number;
}

export type HarnessJoinResult =
  | { ok: true; selfId: string; participants: { participantId: string; name: string }[] }
  | { ok: false; errorType: string; message: string };

/** A room event of the port as the page forwards it: the port's payload, its name in `type`. */
type PortEvent<K extends keyof RoomEvents> = { type: K } & RoomEvents[K];

export type HarnessEvent =
  | { type: 'participant-joined'; participantId: string; name: string }
  | PortEvent<'participant-left'>
  | PortEvent<'utterance'>
  | PortEvent<'audio-activity'>
  /** Daily's audio levels arrive (at most once a second), loud or not: the activity above is only the loud ones. */
  | { type: 'audio-levels' }
  | PortEvent<'transcription'>
  | PortEvent<'disconnected'>
  /** The bot is in the room's lobby (knocking) and has asked to be let in; the join goes on until it is decided. */
  | { type: 'waiting-room' }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  /** A piece of the recording (startRecording), base64, numbered from 0. */
  | { type: 'recording-piece'; seq: number; data: string };

declare global {
  interface Window {
    __botEvent?: (event: HarnessEvent) => void;
    bot: {
      /** Resolves once daily-js is loaded (the page starts loading it at once), rejects when it cannot be. */
      ready(): Promise<void>;
      join(o: HarnessJoinOptions): Promise<HarnessJoinResult>;
      /** `keepTranscription`: leave a transcription the bot started running (its replacement uses it). */
      leave(keepTranscription?: boolean): Promise<void>;
      play(pcmBase64: string, sampleRate: number): Promise<'done' | 'interrupted'>;
      /** A streamed line (daily-speech.ts): opened, fed chunk by chunk as they arrive, ended. */
      openAudio(line: number, sampleRate: number): void;
      pushAudio(line: number, pcmBase64: string): void;
      endAudio(line: number): Promise<'done' | 'interrupted'>;
      stopSpeech(): void;
      /** Sends a line as a chat message to everyone in the call (the bot's voice failed). */
      sendText(text: string, name: string): void;
      /** Records the call's mixed audio, a `recording-piece` every `pieceMs`; resolves with its start (epoch ms). */
      startRecording(pieceMs: number): Promise<number>;
      /** Stops the recorder; resolves once Node has taken its last piece. */
      stopRecording(): Promise<void>;
      /** What the tile shows (for tests and logs). */
      tile?: 'image' | 'name-card' | 'off';
    };
  }
}

const emit = (event: HarnessEvent) => window.__botEvent?.(event);
const dailyModuleUrl = '/vendor/daily-esm.js';

/** Audio level above which a remote participant counts as active (daily-js reports 0..1). */
const activityLevel = 0.02;
/** How often at most Node is told that audio levels arrive (`audio-levels`). */
const levelsHeartbeatMs = 1000;

let call: DailyCall | undefined;
let leaving = false;
let audioContext: AudioContext | undefined;
let microphone: MediaStreamAudioDestinationNode | undefined;
/** The bot's voice, on its way to the microphone (and to the recording). */
let voice: GainNode | undefined;
let playing: { source: AudioBufferSourceNode; done: (outcome: 'done' | 'interrupted') => void } | undefined;
let tileTimer: ReturnType<typeof setInterval> | undefined;
let lastLevelsAt = 0;
const names = new Map<string, string>();
/**
 * When each participant's activity was last told to Node, or 0 after a quiet level: speech resuming after a pause is
 * told at once (a reply held for the person's silence must hear it), sustained speech at most once a second.
 */
const lastActivity = new Map<string, number>();
/**
 * The room's transcription as the bot knows it: whether it runs, whether the bot started it (it stops only its own
 * when it leaves), whether a person in the room stopped it (theirs to decide: not started again), the pending
 * attempt to start it again, and a stop by someone still in the room who may be a bot about to leave (`stopper`).
 */
const transcription = {
  running: false,
  ours: false,
  stoppedByPerson: false,
  retry: undefined as ReturnType<typeof setTimeout> | undefined,
  stopper: undefined as { id: string; decided: ReturnType<typeof setTimeout> } | undefined,
  stoppedAt: 0,
};
/** Final words from interim ones, whatever shape the room's transcription sends (transcript-finality.ts). */
const finality = new TranscriptFinality((w) =>
  emit({ type: 'utterance', ...w, name: names.get(w.participantId) ?? 'Guest' }),
);

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : JSON.stringify(err);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms)),
  ]);
}

/** The bot's microphone: a WebAudio destination whose track Daily sends (speech is played into it). */
function microphoneTrack(): MediaStreamTrack {
  audioContext = new AudioContext({ sampleRate: 48_000 });
  microphone = audioContext.createMediaStreamDestination();
  voice = audioContext.createGain();
  voice.connect(microphone);
  return microphone.stream.getAudioTracks()[0]!;
}

/** Plays 16-bit little-endian mono PCM (Polly's format) into the microphone track; resolves when it ends. */
async function play(pcmBase64: string, sampleRate: number): Promise<'done' | 'interrupted'> {
  if (!audioContext || !microphone) return 'interrupted';
  stopSpeech();
  await audioContext.resume();
  const bytes = Uint8Array.from(atob(pcmBase64), (c) => c.charCodeAt(0));
  const samples = new Int16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
  const buffer = audioContext.createBuffer(1, Math.max(1, samples.length), sampleRate);
  const channel = buffer.getChannelData(0);
  for (let i = 0; i < samples.length; i++) channel[i] = samples[i]! / 32768;
  const source = audioContext.createBufferSource();
  source.buffer = buffer;
  source.connect(voice!);
  return new Promise((resolve) => {
    const done = (outcome: 'done' | 'interrupted') => {
      if (playing?.source !== source) return;
      playing = undefined;
      resolve(outcome);
    };
    playing = { source, done };
    source.onended = () => done('done');
    source.start();
  });
}

/**
 * The streamed line being played: its chunks are scheduled back to back on the audio clock as they arrive, so the
 * first one is heard while the synthesizer still sends the rest. A chunk that arrives late (the clock passed the end
 * of the one before) starts at once.
 */
let streamed:
  | {
      line: number;
      sampleRate: number;
      /** The audio clock time the next chunk starts at. */
      next: number;
      sources: Set<AudioBufferSourceNode>;
      ended: boolean;
      done?: (outcome: 'done' | 'interrupted') => void;
    }
  | undefined;

function openAudio(line: number, sampleRate: number): void {
  stopSpeech();
  if (!audioContext) return;
  void audioContext.resume();
  streamed = { line, sampleRate, next: 0, sources: new Set(), ended: false };
}

function pushAudio(line: number, pcmBase64: string): void {
  const s = streamed;
  if (!s || s.line !== line || !audioContext || !microphone) return;
  const bytes = Uint8Array.from(atob(pcmBase64), (c) => c.charCodeAt(0));
  const samples = new Int16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
  if (!samples.length) return;
  const buffer = audioContext.createBuffer(1, samples.length, s.sampleRate);
  const channel = buffer.getChannelData(0);
  for (let i = 0; i < samples.length; i++) channel[i] = samples[i]! / 32768;
  const source = audioContext.createBufferSource();
  source.buffer = buffer;
  source.connect(voice!);
  const at = Math.max(audioContext.currentTime, s.next);
  s.next = at + buffer.duration;
  s.sources.add(source);
  source.onended = () => {
    s.sources.delete(source);
    if (s.ended && !s.sources.size && streamed === s) {
      streamed = undefined;
      s.done?.('done');
    }
  };
  source.start(at);
}

function endAudio(line: number): Promise<'done' | 'interrupted'> {
  const s = streamed;
  if (!s || s.line !== line) return Promise.resolve('interrupted');
  s.ended = true;
  return new Promise((resolve) => {
    s.done = resolve;
    if (!s.sources.size) {
      streamed = undefined;
      resolve('done');
    }
  });
}

/**
 * A line for everyone in the call as an app message in the shape Daily Prebuilt's chat shows (`event: 'chat-msg'`);
 * a custom client reads `message` and `name`. Daily caps one app message at 4 KB, and the bot's sentences are short.
 */
function sendText(text: string, name: string): void {
  if (!call) throw new Error('not in a call');
  call.sendAppMessage({ event: 'chat-msg', message: text.slice(0, 3000), name, room: 'main-room' }, '*');
}

/** The call's recording, once Node asked for it (call-recorder.ts). */
let recorder: CallRecorder | undefined;

async function startRecording(pieceMs: number): Promise<number> {
  if (!call || !audioContext || !voice) throw new Error('not in a call');
  if (recorder) throw new Error('already recording');
  recorder = await CallRecorder.start({
    audioContext,
    voice,
    participants: () => Object.values(call?.participants() ?? {}),
    pieceMs,
    send: async (seq, data) => {
      await window.__botEvent?.({ type: 'recording-piece', seq, data });
    },
    warn: (message, err) =>
      emit({
        type: 'log',
        level: 'warn',
        message: err === undefined ? message : `${message}: ${messageOf(err)}`,
      }),
  });
  return Date.now();
}

function stopRecording(): Promise<void> {
  return recorder?.stop() ?? Promise.resolve();
}

function stopSpeech(): void {
  const line = streamed;
  if (line) {
    streamed = undefined;
    for (const source of line.sources) {
      source.onended = null;
      try {
        source.stop();
      } catch {}
    }
    line.done?.('interrupted');
  }
  const current = playing;
  if (!current) return;
  current.done('interrupted');
  try {
    current.source.stop();
  } catch {}
}

/** The static tile: the image, or a name card, on a canvas redrawn every second so frames keep flowing. */
async function tileTrack(name: string, imageDataUrl: string | undefined): Promise<MediaStreamTrack> {
  const canvas = document.createElement('canvas');
  canvas.width = 640;
  canvas.height = 360;
  const ctx = canvas.getContext('2d')!;
  let image: HTMLImageElement | undefined;
  if (imageDataUrl) {
    image = new Image();
    image.src = imageDataUrl;
    await image.decode().catch(() => {
      image = undefined;
    });
  }
  window.bot.tile = image ? 'image' : 'name-card';
  const draw = () => {
    if (image) {
      const scale = Math.max(canvas.width / image.width, canvas.height / image.height);
      const w = image.width * scale;
      const h = image.height * scale;
      ctx.drawImage(image, (canvas.width - w) / 2, (canvas.height - h) / 2, w, h);
      return;
    }
    ctx.fillStyle = '#1f2937';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = '#2563eb';
    ctx.beginPath();
    ctx.arc(320, 150, 64, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = '#fff';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.font = 'bold 56px sans-serif';
    ctx.fillText(initials(name), 320, 152);
    ctx.font = '28px sans-serif';
    ctx.fillText(name.length > 36 ? `${name.slice(0, 35)}…` : name, 320, 270);
  };
  draw();
  tileTimer = setInterval(draw, 1000);
  document.body.append(canvas);
  return canvas.captureStream(5).getVideoTracks()[0]!;
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return (
    parts.length > 1 ? parts[0]![0]! + parts[parts.length - 1]![0]! : (parts[0] ?? '?').slice(0, 2)
  ).toUpperCase();
}

/**
 * The object handed to `Daily.createCallObject`. daily-js validates every key that is present, even one whose
 * value is undefined (`property 'token': token should be a string`, dist/daily-esm.js `validateProperties`), so a
 * key is only set when it has a value: a public room is joined without `token` (an empty token is no token).
 */
function callOptions(
  o: HarnessJoinOptions,
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

const levelOf = (access: DailyAccess) => (access === 'unknown' ? 'unknown' : access.level);

/**
 * A knocking room (`enable_knocking`) puts a joiner without a token in its lobby: join() succeeds with access level
 * `lobby`. The bot asks for full access with its name and waits for the answer
 * (https://docs.daily.co/docs/daily-js/guides/waiting-room): requestAccess() resolves once the request is decided,
 * `access-state-updated` to `full` says it was granted, and a denial both resolves `granted: false` and ejects the
 * bot with a fatal `not-allowed` error. How long to wait is Node's business (daily-provider.ts).
 */
function waitInLobby(c: DailyCall, name: string, fatal: () => { type: string; msg: string } | undefined) {
  return new Promise<{ ok: true } | { ok: false; errorType: string; message: string }>((resolve) => {
    const granted = (e: DailyEventObjectAccessState) => {
      if (levelOf(e.access) === 'full') done({ ok: true });
    };
    const failed = () =>
      done({ ok: false, errorType: fatal()?.type ?? 'unknown', message: fatal()?.msg ?? 'left the lobby' });
    const done = (outcome: { ok: true } | { ok: false; errorType: string; message: string }) => {
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

/** How often one call restarts a transcription stopped by someone gone (see `transcription-stopped` in join). */
const maxTranscriptionRestarts = 5;
/** How long after getting in the bot waits to hear of a transcription already running before it starts its own. */
const alreadyRunningWaitMs = 1000;
/**
 * A bot stops its own transcription and then leaves (leave() below: its call.leave() is bounded at 5 s), so a stopper
 * gone within this long was a departing bot, not a person deciding.
 */
const defaultStopperLeaveGraceMs = 10_000;
/** How long after a stop transcription messages may still be the stopped transcription's last words. */
const lateMessageMs = 3000;

/**
 * Daily's transcription is Deepgram's streaming API (https://docs.daily.co/reference/daily-js/instance-methods/start-transcription):
 * `endpointing` and, through `extra`, `interim_results` are Deepgram's own options
 * (https://developers.deepgram.com/docs/understand-endpointing-interim-results). The raw response carries `is_final`
 * and `speech_final`, which turn-taking reads.
 */
function transcriptionOptions(o: HarnessJoinOptions) {
  return {
    language: o.language,
    punctuate: true,
    includeRawResponse: true,
    ...(o.endpointingMs !== undefined && { endpointing: o.endpointingMs }),
    ...(o.interimResults && { extra: { interim_results: true } }),
  };
}

function remember(p: DailyParticipant) {
  names.set(p.session_id, p.user_name || 'Guest');
}

/**
 * The bot receives each participant's audio, their screen share's included (it is in the recording), and never their
 * video (subscribeToTracksAutomatically is off): audio levels can only be measured on audio the bot receives, and video
 * would cost CPU for nothing. What the bot hears is the room's transcription, made by Daily from the tracks it
 * receives itself, so receiving the screen's audio is for the recording alone.
 */
function subscribeToAudio(c: DailyCall, sessionId: string) {
  try {
    c.updateParticipant(sessionId, {
      setSubscribedTracks: { audio: true, screenAudio: true, video: false, screenVideo: false },
    });
  } catch (err) {
    emit({
      type: 'log',
      level: 'warn',
      message: `could not subscribe to ${sessionId}'s audio: ${messageOf(err)}`,
    });
  }
}

/**
 * daily-js loads with the page, not on join: a page prepared ahead of its room (a pooled bot) has it ready.
 * A failure is seen by ready() and join(), not as an unhandled rejection.
 */
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
  call = Daily.createCallObject(
    callOptions(o, {
      audio: microphoneTrack(),
      video: o.videoMode === 'off' ? false : await tileTrack(o.userName, o.imageDataUrl),
    }),
  );

  const selfSessionId = () => call?.participants().local?.session_id;

  call.on('error', (e: DailyEventObjectFatalError) => {
    fatal = { type: e.error?.type ?? 'unknown', msg: e.error?.msg ?? e.errorMsg };
    disconnect();
  });
  call.on('left-meeting', disconnect);
  // An interrupted connection is daily-js's to recover: it reconnects on its own (signaling within about 20 s,
  // https://docs.daily.co/reference/daily-js/events/network-events), and only a fatal `connection-error` means it
  // gave up. So an interruption is logged, never reported as a disconnection.
  call.on('network-connection', (e: DailyEventObjectNetworkConnectionEvent) =>
    emit({
      type: 'log',
      level: e.event === 'interrupted' ? 'warn' : 'info',
      message: `network connection ${e.event} (${e.type})`,
    }),
  );
  call.on('participant-joined', (e: DailyEventObjectParticipant) => {
    if (e.participant.local) return;
    remember(e.participant);
    subscribeToAudio(call!, e.participant.session_id);
    emit({
      type: 'participant-joined',
      participantId: e.participant.session_id,
      name: e.participant.user_name || 'Guest',
    });
  });
  call.on('participant-updated', (e: DailyEventObjectParticipant) => {
    if (e.participant.local) return;
    remember(e.participant);
    recorder?.add(e.participant);
  });
  call.on('track-started', (e: DailyEventObjectTrack) => {
    if (e.track?.kind === 'audio') recorder?.add(e.participant ?? undefined);
  });
  call.on('participant-left', (e: DailyEventObjectParticipantLeft) => {
    recorder?.forget(e.participant.session_id);
    finality.settle(e.participant.session_id);
    emit({ type: 'participant-left', participantId: e.participant.session_id });
    if (transcription.stopper?.id === e.participant.session_id) stopperLeft();
  });
  call.on('transcription-message', (e: DailyEventObjectTranscriptionMessage) => {
    // Words from someone else prove the room's transcription runs, whether or not Daily announced it (a transcription
    // already running, a non-fatal transcription-error): the bot stops trying to start one, and never stops this one.
    // Not while a stop is being decided, nor just after one: words said before a stop can arrive after it.
    const settled = !transcription.stopper && Date.now() - transcription.stoppedAt > lateMessageMs;
    if (!transcription.running && settled && e.participantId !== selfSessionId()) {
      clearTimeout(transcription.retry);
      transcription.retry = undefined;
      transcription.running = true;
      transcription.ours = false;
      transcription.stoppedByPerson = false;
      report('running', 'transcription messages arrive from the room; used as it is');
    }
    finality.message({
      participantId: e.participantId,
      text: e.text,
      at: new Date(e.timestamp ?? Date.now()).toISOString(),
      // Declared always present, but Daily includes it only for a transcription started with includeRawResponse.
      rawResponse: e.rawResponse as Record<string, unknown> | undefined,
    });
  });
  call.on('remote-participants-audio-level', (e: DailyEventObjectRemoteParticipantsAudioLevel) => {
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
  });
  // The room's transcription is everything the bot hears: each change is reported to Node, which ends
  // the session when it cannot get it running in time (TRANSCRIPTION_RECOVERY_MS). Until then the bot keeps trying.
  const report = (state: 'running' | 'failed' | 'stopped', reason: string) =>
    emit({ type: 'transcription', state, reason, ...(state === 'running' && { ours: transcription.ours }) });
  const startTranscription = () => {
    clearTimeout(transcription.retry);
    transcription.retry = undefined;
    if (!joined || leaving || disconnected || !call || transcription.running || transcription.stoppedByPerson)
      return;
    try {
      // Throws only outside 'joined-meeting'; a refusal (no transcription rights) comes as `transcription-error`.
      call.startTranscription(transcriptionOptions(o));
    } catch (err) {
      failed(`transcription could not be started: ${messageOf(err)}`);
    }
  };
  const failed = (reason: string, retry = true) => {
    transcription.running = false;
    report('failed', reason);
    if (retry && !transcription.retry)
      transcription.retry = setTimeout(startTranscription, o.transcriptionRetryMs);
  };
  // Announced while the bot is still joining, a starter may not be remembered yet.
  const nameOf = (sessionId: string) =>
    names.get(sessionId) ??
    Object.values(call?.participants() ?? {}).find((p) => p.session_id === sessionId)?.user_name;
  // A transcription someone else started is used and never stopped, also the one a replaced bot left running for its
  // replacement: a display name cannot tell that bot from another bot or a person of the same name (the default
  // "Meeting Bot"), and stopping theirs would deafen them. So it may run on after the session until the room empties.
  call.on('transcription-started', (e: DailyEventObjectTranscriptionStarted) => {
    clearTimeout(transcription.retry);
    transcription.retry = undefined;
    forgetStopper();
    transcription.running = true;
    transcription.stoppedByPerson = false;
    finality.interims = sendsInterims(e);
    const self = e.startedBy === selfSessionId();
    transcription.ours = self;
    report(
      'running',
      self
        ? `started by the bot (${e.language})`
        : `already running, started by ${nameOf(e.startedBy) ?? 'another participant'} (${e.language}); used as it is`,
    );
  });
  call.on('transcription-error', (e: DailyEventObjectTranscriptionError) =>
    failed(`Daily transcription error: ${e.errorMsg || 'no reason given'}`),
  );
  // Daily's transcription belongs to the room and was started by one participant. If it stops while the bot is in
  // the call — the bot that started it was replaced and has left, its session ended — the bot starts it
  // again: a transcribing bot that hears nothing would end the meeting with an empty transcript. A bot stops its own
  // just before it leaves, so a stopper still in the room is given `stopperLeaveGraceMs` to go: gone by then, the stop
  // was a departing bot's and the bot restarts it; still there, it was a person's decision: left stopped, reported
  // `stopped` and logged. Meanwhile it counts as failed (Node's recovery clock runs). Bounded, so two parties that keep
  // stopping it cannot make the bot loop (then it counts as failed, and Node ends the session in time).
  let restarts = 0;
  const forgetStopper = () => {
    clearTimeout(transcription.stopper?.decided);
    transcription.stopper = undefined;
  };
  const restartAfterStop = (by: string) => {
    if (restarts >= maxTranscriptionRestarts) {
      emit({ type: 'log', level: 'warn', message: 'transcription stopped again; restarts used up' });
      failed(
        'transcription stopped again and again by someone no longer in the room; restarts used up',
        false,
      );
      return;
    }
    restarts++;
    failed(`transcription stopped by ${by}`, false);
    startTranscription();
    emit({ type: 'log', level: 'info', message: `transcription stopped by ${by}; restarted` });
  };
  const stopperLeft = () => {
    forgetStopper();
    if (!transcription.running && !leaving && !disconnected)
      restartAfterStop('a participant who left the room right after');
  };
  call.on('transcription-stopped', (e: DailyEventObjectTranscriptionStopped) => {
    transcription.running = false;
    transcription.stoppedAt = Date.now();
    finality.settleAll();
    finality.interims = undefined;
    forgetStopper();
    if (!joined || leaving || disconnected || !call) return;
    const stopper = Object.values(call.participants()).find((p) => !p.local && p.session_id === e.updatedBy);
    if (!stopper) return restartAfterStop('someone no longer in the room');
    const who = stopper.user_name || 'a participant';
    failed(`transcription stopped by ${who}; restarted if they leave the room soon`, false);
    transcription.stopper = {
      id: stopper.session_id,
      decided: setTimeout(() => {
        transcription.stopper = undefined;
        if (transcription.running || leaving || disconnected) return;
        transcription.stoppedByPerson = true;
        const reason = `transcription stopped by ${who}, who stays in the room; not restarted`;
        emit({ type: 'log', level: 'warn', message: reason });
        report('stopped', reason);
      }, o.stopperLeaveGraceMs ?? defaultStopperLeaveGraceMs),
    };
  });

  try {
    await call.join();
  } catch (err) {
    // The fatal `error` event carries Daily's type; it can arrive just after the rejection.
    await new Promise((r) => setTimeout(r, 50));
    return {
      ok: false,
      errorType: fatal?.type ?? 'unknown',
      message: fatal?.msg ?? messageOf(err),
    };
  }
  if (levelOf(call.accessState().access) === 'lobby') {
    const answer = await waitInLobby(call, o.userName, () => fatal);
    if (!answer.ok) return answer;
  }
  joined = true;
  const everyone = Object.values(call.participants());
  const self = everyone.find((p) => p.local);
  const others = everyone.filter((p) => !p.local);
  for (const p of others) {
    remember(p);
    subscribeToAudio(call, p.session_id);
  }
  // A transcription the customer's app already runs is announced to a joiner with `transcription-started` (the event
  // pipecat-ai/pipecat#2241 describes a bot mishandling): the bot uses it as it is, and starts its own only when
  // none was announced shortly after it got in. Not restarting it keeps the customer's settings; the bot's own is
  // the only one it stops when it leaves.
  if (!transcription.running) setTimeout(startTranscription, alreadyRunningWaitMs);
  // Rejects with `{ error }`, not an Error, when the call machine refuses.
  await Promise.resolve(call.startRemoteParticipantsAudioLevelObserver(200)).catch((err: unknown) =>
    emit({ type: 'log', level: 'warn', message: `audio levels not observed: ${messageOf(err)}` }),
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
  finality.settleAll();
  await withTimeout(stopRecording(), 3000, 'stop recording').catch(() => {});
  clearInterval(tileTimer);
  clearTimeout(transcription.retry);
  clearTimeout(transcription.stopper?.decided);
  if (!call) return;
  if (transcription.running && transcription.ours && !keepTranscription) {
    try {
      call.stopTranscription();
      emit({ type: 'log', level: 'info', message: 'stopped the transcription the bot started' });
    } catch (err) {
      emit({ type: 'log', level: 'warn', message: `transcription not stopped: ${messageOf(err)}` });
    }
  }
  // The promises leave() and destroy() return can hang: bounded, then the browser is closed anyway.
  await withTimeout(call.leave(), 5000, 'leave').catch(() => {});
  await withTimeout(call.destroy(), 3000, 'destroy').catch(() => {});
  await audioContext?.close().catch(() => {});
}

window.bot = {
  ready: () => daily.then(() => {}),
  join,
  leave,
  play,
  openAudio,
  pushAudio,
  endAudio,
  stopSpeech,
  sendText,
  startRecording,
  stopRecording,
};

// A stand-in for daily-js served into the bot page by page.route. Its payloads are typed against daily-js's own
// declarations, so a change in the published types fails `tsc` here, and every options object it is given first
// goes through the real daily-js's createCallObject, so it rejects exactly what daily-js rejects. Tests drive it
// through window.__dailyStub.
import type {
  DailyAccessRequest,
  DailyAccessState,
  DailyCall,
  DailyCallFactory,
  DailyEvent,
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
  DailyFactoryOptions,
  DailyFatalErrorType,
  DailyParticipant,
  DailyParticipantsObject,
  DailyParticipantUpdateOptions,
  DailyTrackSubscriptionOptions,
  DailyTranscriptionDeepgramOptions,
} from '@daily-co/daily-js';
import Daily from '@daily-co/daily-js';

/** The frames of a video track (a clone of it), through Chromium's MediaStreamTrackProcessor (not in the DOM types). */
export function videoFrameReader(track: MediaStreamTrack): ReadableStreamDefaultReader<VideoFrame> {
  const Processor = (
    window as unknown as {
      MediaStreamTrackProcessor: new (o: {
        track: MediaStreamTrack;
      }) => { readable: ReadableStream<VideoFrame> };
    }
  ).MediaStreamTrackProcessor;
  return new Processor({ track: track.clone() }).readable.getReader();
}

export interface StubScenario {
  joinError?: { type: DailyFatalErrorType; msg: string };
  /** Participants already in the room when the bot joins. */
  present?: { id: string; name: string }[];
  /** A knocking room the bot has no token for: join() puts it in the lobby (access level `lobby`). */
  lobby?: boolean;
  /**
   * The room's transcription: `starts` when the bot asks (default: transcription-started, startedBy the bot);
   * `refused` with a transcription-error saying `msg` (no transcription rights, no transcription on the account);
   * `silent`: never answers; `alreadyRunning`: started by `startedBy` before the bot came (with Deepgram's `extra`
   * options, e.g. interim results), announced to it with transcription-started once it is in.
   */
  transcription?:
    | 'starts'
    | 'silent'
    | { refused: string }
    | { alreadyRunning: { startedBy: string; extra?: Record<string, unknown> } };
}

type Listener = (event: unknown) => void;

/** Fields every daily-js event object carries. */
const base = { callClientId: 'stub-call-client' };

function participant(id: string, name: string, local: boolean): DailyParticipant {
  return { session_id: id, user_id: id, user_name: name, local, owner: false } as DailyParticipant;
}

class StubCall {
  readonly calls: string[] = [];
  transcriptionOptions: DailyTranscriptionDeepgramOptions | undefined;
  /** What the bot sent with sendAppMessage, in order. */
  readonly appMessages: { data: unknown; to: string | string[] }[] = [];
  /** What the bot subscribed to of each participant (updateParticipant's setSubscribedTracks), by session id. */
  readonly subscriptions: Record<string, DailyTrackSubscriptionOptions> = {};
  private readonly listeners = new Map<string, Listener[]>();
  private readonly people = new Map<string, DailyParticipant>();
  private state: ReturnType<DailyCall['meetingState']> = 'new';
  private access: DailyAccessState = { access: 'unknown' };
  /** The answer to a pending requestAccess(), given by admit() or deny(). */
  private answerRequest?: (answer: Awaited<ReturnType<DailyCall['requestAccess']>>) => void;

  constructor(
    readonly options: DailyFactoryOptions,
    private readonly scenario: StubScenario,
  ) {}

  on(event: DailyEvent, listener: Listener) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  off(event: DailyEvent, listener: Listener) {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((l) => l !== listener),
    );
    return this;
  }

  emit(event: { action: DailyEvent }) {
    for (const l of this.listeners.get(event.action) ?? []) l(event);
  }

  meetingState() {
    return this.state;
  }

  async join(): Promise<DailyParticipantsObject> {
    this.calls.push('join');
    this.state = 'joining-meeting';
    if (this.scenario.joinError) {
      const { type, msg } = this.scenario.joinError;
      const fatal: DailyEventObjectFatalError = {
        ...base,
        action: 'error',
        errorMsg: msg,
        error: { type, msg },
      };
      this.state = 'error';
      this.emit(fatal);
      throw new Error(msg);
    }
    this.people.set('bot-session', participant('bot-session', this.options.userName ?? '', true));
    this.state = 'joined-meeting';
    // In the lobby the others are hidden (docs.daily.co waiting-room guide): they appear once access is full.
    if (this.scenario.lobby) this.access = { access: { level: 'lobby' } };
    else this.enterCall();
    return this.participants();
  }

  private enterCall() {
    this.access = { access: { level: 'full' } };
    for (const p of this.scenario.present ?? []) this.people.set(p.id, participant(p.id, p.name, false));
    const t = this.scenario.transcription;
    if (t && typeof t === 'object' && 'alreadyRunning' in t)
      setTimeout(
        () => this.transcriptionStarted(t.alreadyRunning.startedBy, 'en', t.alreadyRunning.extra),
        20,
      );
  }

  accessState(): DailyAccessState {
    return this.access;
  }

  /** As daily-js 0.92: only after join (the same words, checked against the real bundle), resolving once decided. */
  async requestAccess(request: DailyAccessRequest): ReturnType<DailyCall['requestAccess']> {
    if (this.state !== 'joined-meeting') throw new Error('requestAccess() only supported after join.');
    this.calls.push(`requestAccess:${request.name}:${request.access?.level}`);
    return new Promise((resolve) => {
      this.answerRequest = resolve;
    });
  }

  participants(): DailyParticipantsObject {
    const all: Record<string, DailyParticipant> = {};
    for (const p of this.people.values()) all[p.local ? 'local' : p.session_id] = p;
    return all as DailyParticipantsObject;
  }

  /** As daily-js: only in the call; the outcome comes as an event (per the scenario). */
  startTranscription(options?: DailyTranscriptionDeepgramOptions) {
    if (this.state !== 'joined-meeting') throw new Error('startTranscription() only supported after join.');
    this.calls.push('startTranscription');
    this.transcriptionOptions = options;
    const t = this.scenario.transcription ?? 'starts';
    if (t === 'silent') return;
    if (typeof t === 'object' && 'refused' in t) setTimeout(() => this.transcriptionError(t.refused), 10);
    else setTimeout(() => this.transcriptionStarted('bot-session', options?.language), 10);
  }

  stopTranscription() {
    if (this.state !== 'joined-meeting') throw new Error('stopTranscription() only supported after join.');
    this.calls.push('stopTranscription');
    setTimeout(() => this.transcriptionStopped('bot-session'), 10);
  }

  updateParticipant(sessionId: string, updates: DailyParticipantUpdateOptions) {
    if (updates.setSubscribedTracks !== undefined)
      this.subscriptions[sessionId] = updates.setSubscribedTracks;
    return this;
  }

  async startRemoteParticipantsAudioLevelObserver(interval?: number) {
    this.calls.push(`startRemoteParticipantsAudioLevelObserver:${interval}`);
  }

  /** As daily-js: only in a call, JSON data of at most 4 KB (docs.daily.co sendAppMessage), `to` a session id or '*'. */
  sendAppMessage(data: unknown, to: string | string[] = '*') {
    if (this.state !== 'joined-meeting') throw new Error('sendAppMessage() only supported after join');
    if (JSON.stringify(data).length > 4096) throw new Error('app message data too large (over 4 KB)');
    this.calls.push('sendAppMessage');
    this.appMessages.push({ data, to });
    return this as unknown as DailyCall;
  }

  async leave() {
    this.calls.push('leave');
    this.state = 'left-meeting';
  }

  async destroy() {
    this.calls.push('destroy');
  }

  // Test controls, each emitting exactly what daily-js would.
  /** An owner lets the bot in: access turns full (`access-state-updated`), and requestAccess() resolves granted. */
  admit() {
    this.enterCall();
    const e: DailyEventObjectAccessState = { ...base, action: 'access-state-updated', ...this.access };
    this.emit(e);
    this.answerRequest?.({ access: { level: 'full' }, granted: true });
  }

  /**
   * An owner turns the bot away: requestAccess() resolves `granted: false` with access still `lobby` (the quirk the
   * docs describe) and daily-js ejects the bot with a fatal `not-allowed` error, in either order.
   */
  deny(msg: string, order: 'answer-first' | 'error-first') {
    const answer = () => this.answerRequest?.({ access: { level: 'lobby' }, granted: false });
    if (order === 'error-first') {
      this.fatal('not-allowed', msg);
      answer();
    } else {
      answer();
      setTimeout(() => this.fatal('not-allowed', msg), 50);
    }
  }

  addParticipant(id: string, name: string) {
    const p = participant(id, name, false);
    this.people.set(id, p);
    const e: DailyEventObjectParticipant = { ...base, action: 'participant-joined', participant: p };
    this.emit(e);
  }

  /**
   * Participant `id` speaks: `wavBase64` (a WAV file) is decoded and played into an audio track that becomes their
   * `tracks.audio` (announced with participant-updated and track-started, as daily-js does for a subscribed track),
   * or, with `kind` `screenAudio`, the audio of the screen they share. Only a track the bot subscribed to
   * (setSubscribedTracks) reaches it, as in daily-js. Resolves when it has been played. The track stays, silent,
   * afterwards.
   */
  async speak(id: string, wavBase64: string, kind: 'audio' | 'screenAudio' = 'audio'): Promise<void> {
    const p = this.people.get(id);
    if (!p) throw new Error(`no participant ${id}`);
    const wanted = this.subscriptions[id];
    if (typeof wanted !== 'object' || wanted[kind] !== true)
      throw new Error(`${id}'s ${kind} is not subscribed`);
    this.voices ??= new AudioContext({ sampleRate: 48_000 });
    const ctx = this.voices;
    await ctx.resume();
    let out = this.tracks.get(`${id}/${kind}`);
    if (!out) {
      out = ctx.createMediaStreamDestination();
      out.channelCount = 1;
      this.tracks.set(`${id}/${kind}`, out);
      const track = out.stream.getAudioTracks()[0]!;
      const current = this.people.get(id)!;
      const updated = {
        ...current,
        tracks: {
          ...(current.tracks ?? {}),
          [kind]: { state: 'playable', subscribed: true, track, persistentTrack: track },
        },
      } as unknown as DailyParticipant;
      this.people.set(id, updated);
      this.emit({
        ...base,
        action: 'participant-updated',
        participant: updated,
      } as DailyEventObjectParticipant);
      const started: DailyEventObjectTrack = {
        ...base,
        action: 'track-started',
        participant: updated,
        track,
        type: kind,
      };
      this.emit(started);
    }
    const bytes = Uint8Array.from(atob(wavBase64), (c) => c.charCodeAt(0));
    const buffer = await ctx.decodeAudioData(bytes.buffer);
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(out);
    await new Promise<void>((resolve) => {
      source.onended = () => resolve();
      source.start();
    });
  }
  private voices: AudioContext | undefined;
  private readonly tracks = new Map<string, MediaStreamAudioDestinationNode>();

  removeParticipant(id: string) {
    const p = this.people.get(id) ?? participant(id, '', false);
    this.people.delete(id);
    const e: DailyEventObjectParticipantLeft = { ...base, action: 'participant-left', participant: p };
    this.emit(e);
  }

  /**
   * A transcription message. `isFinal` undefined: the shape of a transcription started without `includeRawResponse`,
   * which has no `rawResponse` at all (daily-js declares the field required; Daily includes it only when asked).
   */
  transcribe(participantId: string, text: string, isFinal: boolean | undefined) {
    const message = {
      ...base,
      action: 'transcription-message' as const,
      participantId,
      text,
      timestamp: new Date(),
      trackType: 'cam-audio',
    };
    const e: DailyEventObjectTranscriptionMessage =
      isFinal === undefined
        ? (message as DailyEventObjectTranscriptionMessage)
        : {
            ...message,
            rawResponse: { is_final: isFinal, channel: { alternatives: [{ transcript: text }] } },
          };
    this.emit(e);
  }

  /** The room's transcription started, by the participant `startedBy` (the bot: 'bot-session'). */
  transcriptionStarted(startedBy: string, language = 'en', extra?: Record<string, unknown>) {
    const e: DailyEventObjectTranscriptionStarted = {
      ...base,
      action: 'transcription-started',
      instanceId: 'stub-transcription',
      language,
      model: 'nova-2',
      startedBy,
      ...(extra && { extra }),
    };
    this.emit(e);
  }

  /** The room's transcription failed (could not start, or broke), in Daily's words `msg`. */
  transcriptionError(msg: string) {
    const e: DailyEventObjectTranscriptionError = {
      ...base,
      action: 'transcription-error',
      instanceId: 'stub-transcription',
      errorMsg: msg,
    };
    this.emit(e);
  }

  /** The room's transcription stopped, by the participant `updatedBy` (a session id; maybe one no longer here). */
  transcriptionStopped(updatedBy: string) {
    const e: DailyEventObjectTranscriptionStopped = {
      ...base,
      action: 'transcription-stopped',
      instanceId: 'stub-transcription',
      updatedBy,
    };
    this.emit(e);
  }

  audioLevels(levels: Record<string, number>) {
    const e: DailyEventObjectRemoteParticipantsAudioLevel = {
      ...base,
      action: 'remote-participants-audio-level',
      participantsAudioLevel: levels,
    };
    this.emit(e);
  }

  /**
   * A fatal error during the call, as daily-js's `_handleFatalError`: meetingState is already 'error' when `error`
   * fires; `left-meeting` follows (documented, not always). `type` undefined: an `error` event with no `error` object.
   */
  fatal(type: DailyFatalErrorType | undefined, msg: string, thenLeftMeeting = true) {
    const error =
      type === 'connection-error'
        ? { type, msg, details: { on: 'reconnect' as const, sourceError: {} } }
        : type && { type, msg };
    const e: DailyEventObjectFatalError = {
      ...base,
      action: 'error',
      errorMsg: msg,
      ...(error ? { error } : {}),
    };
    this.state = 'error';
    this.emit(e);
    if (thenLeftMeeting) this.leftMeeting();
  }

  leftMeeting() {
    this.state = 'left-meeting';
    this.emit({ action: 'left-meeting' });
  }

  /** A connection interrupted or (re)connected: daily-js recovers from these on its own. */
  networkConnection(
    type: DailyEventObjectNetworkConnectionEvent['type'],
    event: 'interrupted' | 'connected',
  ) {
    const e: DailyEventObjectNetworkConnectionEvent = { ...base, action: 'network-connection', type, event };
    this.emit(e);
  }

  /**
   * Measures the loudest sample on the bot's microphone track over `ms` (Web Audio analyser); with `until`, stops as
   * soon as the peak reaches it (a loaded machine may start the sound late in a fixed window).
   */
  async peakAudio(ms: number, until = Number.POSITIVE_INFINITY): Promise<number> {
    const track = this.options.audioSource;
    if (!(track instanceof MediaStreamTrack)) return -1;
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 2048;
    ctx.createMediaStreamSource(new MediaStream([track])).connect(analyser);
    const data = new Float32Array(analyser.fftSize);
    let peak = 0;
    const end = performance.now() + ms;
    while (performance.now() < end && peak < until) {
      analyser.getFloatTimeDomainData(data);
      for (const v of data) peak = Math.max(peak, Math.abs(v));
      await new Promise((r) => setTimeout(r, 20));
    }
    await ctx.close();
    return peak;
  }

  /** Reads `n` frames from the bot's video track; returns their sizes. */
  async videoFrames(n: number): Promise<{ width: number; height: number }[]> {
    const track = this.options.videoSource;
    if (!(track instanceof MediaStreamTrack)) return [];
    const reader = videoFrameReader(track);
    const frames: { width: number; height: number }[] = [];
    while (frames.length < n) {
      const { value } = await reader.read();
      if (!value) break;
      frames.push({ width: value.displayWidth, height: value.displayHeight });
      value.close();
    }
    reader.releaseLock();
    return frames;
  }

  /** Every key the harness handed to createCallObject (tracks as `track:<kind>:<state>`), as plain data. */
  describeOptions(): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(this.options).map(([key, value]) => [
        key,
        value instanceof MediaStreamTrack ? `track:${value.kind}:${value.readyState}` : value,
      ]),
    );
  }
}

declare global {
  interface Window {
    __dailyStub?: StubCall;
    __dailyStubScenario?: StubScenario;
  }
}

/**
 * Runs the options through the installed daily-js's own createCallObject (its `validateProperties`), then destroys
 * that call: it throws daily-js's error for a value it rejects, and our own for a key it would drop with a warning.
 * A copy is passed because daily-js adds keys to (and deletes unrecognized ones from) the object it is given.
 */
export function validateWithDailyJs(options: DailyFactoryOptions): void {
  const copy = { ...options };
  const real = Daily.createCallObject(copy);
  void real.destroy();
  const dropped = Object.keys(options).filter((key) => !(key in copy));
  if (dropped.length) throw new Error(`daily-js ignores unrecognized properties: ${dropped.join(', ')}`);
}

const factory: Pick<DailyCallFactory, 'createCallObject'> = {
  createCallObject(options?: DailyFactoryOptions) {
    validateWithDailyJs(options ?? {});
    const call = new StubCall(options ?? {}, window.__dailyStubScenario ?? {});
    window.__dailyStub = call;
    return call as unknown as DailyCall;
  },
};

export default factory;

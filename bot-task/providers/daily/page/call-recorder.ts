// The call's recording in the bot's page: every remote participant's audio and the bot's voice mixed to one mono
// stream, recorded as Opus in WebM at about 32 kb/s and handed to Node a piece at a time (docs/recording.md).
import type { DailyParticipant } from '@daily-co/daily-js';

/** A participant's audio tracks the bot records (daily-js `DailyParticipantTracks`): microphone and screen share. */
const remoteAudioKinds = ['audio', 'screenAudio'] as const;

const mimeType = 'audio/webm;codecs=opus';

export interface CallRecorderOptions {
  audioContext: AudioContext;
  /** The bot's voice, mixed in with the others. */
  voice: AudioNode;
  /** Who is in the call when the recorder starts (later arrivals come through add()). */
  participants(): DailyParticipant[];
  pieceMs: number;
  /** Hands a piece (base64) to Node; settles once Node has taken it. */
  send(seq: number, data: string): Promise<void>;
  warn(message: string, err?: unknown): void;
}

function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

export class CallRecorder {
  /** The remote tracks in the mix, by `<session id>/<kind>` (remoteAudioKinds). */
  private readonly remote = new Map<
    string,
    { trackId: string; node: MediaStreamAudioSourceNode; element: HTMLAudioElement }
  >();
  private seq = 0;
  /** Pieces on their way to Node, in order. */
  private sent: Promise<void> = Promise.resolve();

  private constructor(
    private readonly audioContext: AudioContext,
    private readonly mix: MediaStreamAudioDestinationNode,
    private readonly media: MediaRecorder,
  ) {}

  static async start(o: CallRecorderOptions): Promise<CallRecorder> {
    if (!MediaRecorder.isTypeSupported(mimeType)) throw new Error(`this browser cannot record ${mimeType}`);
    await o.audioContext.resume();
    const mix = o.audioContext.createMediaStreamDestination();
    mix.channelCount = 1;
    mix.channelCountMode = 'explicit';
    o.voice.connect(mix);
    const media = new MediaRecorder(mix.stream, { mimeType, audioBitsPerSecond: 32_000 });
    const r = new CallRecorder(o.audioContext, mix, media);
    for (const p of o.participants()) r.add(p);
    media.ondataavailable = (e: BlobEvent) => {
      if (!e.data.size) return;
      const seq = r.seq++;
      // Awaiting the binding: Node has taken the piece when its promise settles, so stop() can wait for all.
      r.sent = r.sent
        .then(async () => o.send(seq, await base64Of(e.data)))
        .catch((err) => o.warn(`recording piece ${seq} lost`, err));
    };
    media.onerror = () => o.warn('the recorder reported an error');
    media.start(o.pieceMs);
    return r;
  }

  /** Adds (or updates) a remote participant's audio tracks in the mix. */
  add(p: DailyParticipant | undefined): void {
    if (!p || p.local) return;
    for (const kind of remoteAudioKinds) {
      const state = p.tracks?.[kind];
      const track = state?.persistentTrack ?? state?.track;
      const key = `${p.session_id}/${kind}`;
      const known = this.remote.get(key);
      if (!track || track.readyState === 'ended' || known?.trackId === track.id) continue;
      if (known) this.forgetTrack(key);
      const stream = new MediaStream([track]);
      // Chromium feeds a remote WebRTC track into Web Audio only while a media element plays it too
      // (https://crbug.com/933677); muted, so the bot's page stays silent.
      const element = new Audio();
      element.muted = true;
      element.srcObject = stream;
      void element.play().catch(() => {});
      const node = this.audioContext.createMediaStreamSource(stream);
      node.connect(this.mix);
      this.remote.set(key, { trackId: track.id, node, element });
    }
  }

  /** A participant who left: their tracks leave the mix. */
  forget(sessionId: string): void {
    for (const kind of remoteAudioKinds) this.forgetTrack(`${sessionId}/${kind}`);
  }

  private forgetTrack(key: string): void {
    const known = this.remote.get(key);
    if (!known) return;
    known.node.disconnect();
    known.element.srcObject = null;
    this.remote.delete(key);
  }

  /** Resolves once Node has taken the last piece. */
  stop(): Promise<void> {
    if (this.media.state === 'inactive') return this.sent;
    return new Promise((resolve) => {
      this.media.onstop = () => {
        for (const key of [...this.remote.keys()]) this.forgetTrack(key);
        void this.sent.then(resolve);
      };
      this.media.stop();
    });
  }
}

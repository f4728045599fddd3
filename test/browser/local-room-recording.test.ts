// The local room records what it carries, through npm start's stack: a person's page turns its microphone on (Chromium
// plays an espeak-ng WAV as that microphone), the room relays it to the recording bot, whose own browser mixes it with
// the bot's voice; the file fetched through the recording endpoint is decoded with ffprobe/ffmpeg: its length is the
// meeting's, there is sound where the bot spoke and where the person spoke, and the notice is the transcript's first
// line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../bot-task/providers/daily/chromium';
import { LocalRoomProvider } from '../../bot-task/providers/local-room';
import { createLogger } from '../../core/log';
import { espeakWav } from '../support/espeak';
import { startTestStack, type TestStack } from '../support/local-stack';
import { chromiumPath, requires, skipReason } from '../support/requirements';
import { startRoomServer } from '../support/room-server';
import { elapse, until } from '../support/until';

const dir = mkdtempSync(join(tmpdir(), 'local-recording-'));

/** until(), saying what did not happen. */
const awaiting = <T>(
  what: string,
  probe: () => T | false | undefined | Promise<T | false | undefined>,
  ms: number,
) =>
  until(probe, ms).catch(() => {
    throw new Error(`${what}: not within ${ms / 1000} s`);
  });

/** Loudness (RMS, 16-bit full scale) of the decoded file per 100 ms, and its length in seconds. */
function decode(bytes: Uint8Array): { duration: number; rms: number[] } {
  const file = join(dir, 'meeting.webm');
  writeFileSync(file, bytes);
  const duration = Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file])
      .toString()
      .trim(),
  );
  const pcm = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-ac', '1', '-ar', '16000', '-f', 's16le', '-'],
    {
      maxBuffer: 1 << 26,
    },
  );
  const rms: number[] = [];
  for (let at = 0; at + 3200 <= pcm.length; at += 3200) {
    let sum = 0;
    for (let i = at; i < at + 3200; i += 2) sum += pcm.readInt16LE(i) ** 2;
    rms.push(Math.sqrt(sum / 1600));
  }
  return { duration, rms };
}

/** The mean loudness between `from` and `to` seconds of the file. */
const loudness = (rms: number[], from: number, to: number) => {
  const part = rms.slice(Math.max(0, Math.round(from * 10)), Math.round(to * 10));
  return part.reduce((a, b) => a + b, 0) / Math.max(1, part.length);
};

const skip = skipReason(requires.chromium(), requires.espeakNg(), requires.ffmpeg());

describe.skipIf(skip)('local room recording through the local stack', () => {
  let stack: TestStack;
  let key: string;
  let browser: Browser;
  beforeAll(async () => {
    // The person's speech, then silence: Chromium loops the file as the fake microphone.
    const speech = espeakWav(
      'Hello, this is Ada speaking into my microphone. I am the person in this room.',
      'en-us',
    );
    const silence = Buffer.alloc(speech.readUInt32LE(24) * 2 * 20);
    const wav = Buffer.concat([speech.subarray(0, 44), speech.subarray(44), silence]);
    wav.writeUInt32LE(wav.length - 8, 4);
    wav.writeUInt32LE(wav.length - 44, 40);
    const wavPath = join(dir, 'ada.wav');
    writeFileSync(wavPath, wav);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [...chromiumFlags, `--use-file-for-fake-audio-capture=${wavPath}`],
    });
    stack = await startTestStack({ RECORDING_PIECE_MS: '2000', TRANSCRIPT_FLUSH_MS: '200' });
    ({ apiKey: key } = await stack.account(100));
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('one playable file with the bot’s voice and the person’s microphone, fetched through the endpoint', {
    timeout: 120_000,
  }, async () => {
    const room = stack.rooms.createRoom('recorded', false);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${stack.baseUrl}/rooms/recorded`);
    await page.fill('#name', 'Ada');
    await page.click('#joinForm button');
    await page.waitForSelector('#call:not([hidden])');

    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/recorded`,
        recording: { audio: true },
        bot_config: { name: 'Scribe' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const botId: string = res.body.bot_id;
    const bot = await awaiting(
      'the bot in the room',
      () => room.participants.find((p) => p.kind === 'bot'),
      60_000,
    );
    const botSpeaking = () =>
      room.log.filter(
        (e): e is typeof e & { type: 'speaking'; active: boolean } =>
          e.type === 'speaking' && e.participant_id === bot.id,
      );
    // The recorder has started once its first piece is stored: its start is where the file's time 0 is.
    const [first] = await awaiting(
      'a first piece of the recording',
      async () => {
        const pieces = await stack.deps.recordings().listPieces(botId);
        return pieces.length > 0 && pieces;
      },
      30_000,
    );
    const { startedAtMs } = await first!.read();
    // The bot says the notice (then its greeting, where it has one): wait until it has been quiet for 3 s.
    await awaiting(
      'the bot’s notice, then 3 s of quiet',
      () => {
        const last = botSpeaking().at(-1);
        return last && !last.active && Date.now() - Date.parse(last.at) > 3000;
      },
      60_000,
    );
    const botTalked = botSpeaking();

    const micOn = Date.now();
    await page.click('#audio');
    await page.waitForSelector('#audio[aria-pressed="true"]');
    // The person speaks for 4.5 s.
    await elapse(4500);
    await page.click('#audio');
    const micOff = Date.now();
    // A second of quiet after.
    await elapse(1000);
    // The person's audio is recorded, not transcribed: the bot did not speak while the microphone was on.
    expect(botSpeaking().length).toBe(botTalked.length);

    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key })).status).toBeLessThan(300);
    const recording = await awaiting(
      'the recording',
      async () => {
        const r = await stack.request('GET', `/api/bot/${botId}/recording`, { key });
        return r.status === 200 && r.body;
      },
      60_000,
    );
    const status = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    expect(status.status).toBe('completed');
    expect(status.warnings ?? []).toEqual([]);
    const lines = status.transcript.split('\n');
    expect(lines[0]).toBe('Scribe: This meeting is being recorded.');
    // Then the greeting: the notice, a bot line too, is not taken for a replaced bot rejoining (no apology).
    expect(lines[1]).toMatch(/^Scribe: Hello Ada/);
    expect(status.transcript).not.toContain('lost my connection');

    const file = await fetch(recording.url);
    expect(file.status).toBe(200);
    const { duration, rms } = decode(new Uint8Array(await file.arrayBuffer()));
    const at = (ms: number) => (ms - startedAtMs) / 1000;
    // The meeting: the bot in the room, from its joining to its leaving (the room's log).
    const botLog = room.log.filter((e) => e.participant_id === bot.id);
    const joined = Date.parse(botLog.find((e) => e.type === 'joined')!.at);
    const left = Date.parse(botLog.find((e) => e.type === 'left')!.at);
    expect(Math.abs(duration - (left - joined) / 1000)).toBeLessThan(2);
    expect(Math.abs(duration - recording.duration_seconds)).toBeLessThan(0.2);

    const firstLine = { from: at(Date.parse(botTalked[0]!.at)), to: at(Date.parse(botTalked[1]!.at)) };
    const quiet = loudness(rms, at(Date.parse(botTalked.at(-1)!.at)) + 2, at(micOn) - 0.2);
    const bots = loudness(rms, firstLine.from + 0.3, firstLine.to - 0.3);
    const persons = loudness(rms, at(micOn) + 0.5, at(micOff));
    // The WAV's silence after its words: what is loud above is the person's speech, not a constant noise.
    const after = loudness(rms, at(micOff) + 0.5, at(micOff) + 1.2);
    expect(bots).toBeGreaterThan(300);
    expect(persons).toBeGreaterThan(300);
    expect(quiet).toBeLessThan(bots / 10);
    expect(after).toBeLessThan(persons / 10);
  });

  it('a bot voice that cannot be synthesized: the recorder goes on with the people, and says so once', async () => {
    const server = await startRoomServer();
    try {
      server.rooms.createRoom('voiceless', false);
      const provider = new LocalRoomProvider(1, {
        synthesizer: { synthesize: () => Promise.reject(new Error('espeak-ng: not found')) },
        log: createLogger('silent'),
      });
      const conn = await provider.join({
        roomUrl: `${server.base}/rooms/voiceless`,
        botName: 'Scribe',
        videoMode: 'off',
        voice: 'Joanna',
        timeoutMs: 30_000,
        waitingRoomTimeoutMs: 30_000,
        recording: true,
      });
      const warnings: string[] = [];
      const pieces: number[] = [];
      const recording = await conn.record!({
        pieceMs: 1000,
        onPiece: (p) => pieces.push(p.seq),
        onWarning: (m) => warnings.push(m),
      });
      await conn.speech.say('This meeting is being recorded.');
      await conn.speech.say('Hello.');
      await until(() => warnings.length > 0, 10_000);
      await recording.stop();
      await conn.leave();
      expect(warnings).toEqual([
        'The bot’s voice could not be recorded; the recording has the participants only (espeak-ng: not found).',
      ]);
      expect(pieces[0]).toBe(0);
    } finally {
      await server.stop();
    }
  });
});

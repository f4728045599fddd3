// The recording through the local stack over real HTTP: a recorded session's endpoint answers 409 while it runs, the
// results stage assembles the pieces its bot uploaded (here: real Opus/WebM written by ffmpeg, two tasks as after a
// replacement), then the endpoint gives a signed link the local stack serves, which ffprobe reads; a link tampered
// with or of another bot is refused. A session that was not recorded is a 404, as is another account's bot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failBotInRoom } from '../../core/bots/replace-bot';
import { type OutboxMessage, queueOf } from '../../core/control/outbox';
import { LocalInsightsEngine } from '../../core/engines/rules/insights/local-engine';
import type { RecordingStore } from '../../core/ports/recordings';
import type { TaskRunner } from '../../core/ports/task-runner';
import { type ResultsMessage, sessionEnded, sessionFailed } from '../../core/results/messages';
import { processResults } from '../../core/results/process-results';
import { startTestStack, type TestStack } from '../support/local-stack';
import { webmDuration, webmTone } from '../support/webm-audio';

/** Records starts instead of spawning bot processes: the pieces are written straight to the store. */
const noBots: TaskRunner = { start: async (botId) => ({ taskRef: `test:${botId}` }), stop: async () => {} };

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = noBots;
  ({ apiKey: key } = await stack.account(100));
});
afterAll(() => stack?.close());

async function startBot(body: Record<string, unknown> = {}, apiKey = key): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', {
    key: apiKey,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/recorded`, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.bot_id;
}

/** `seconds` of tone as a live Opus/WebM stream, as a MediaRecorder writes it, cut in three pieces. */
function pieces(hz: number, seconds: number): Uint8Array[] {
  const bytes = webmTone(hz, seconds);
  const third = Math.floor(bytes.length / 3);
  return [bytes.subarray(0, third), bytes.subarray(third, 2 * third), bytes.subarray(2 * third)];
}

const recording = (botId: string, apiKey = key) =>
  stack.request('GET', `/api/bot/${botId}/recording`, { key: apiKey });

describe('GET /api/bot/{bot_id}/recording', { timeout: 60_000 }, () => {
  it('409 while running; after the results stage one file, served by a signed link valid at most an hour', async () => {
    const botId = await startBot({ recording: { audio: true } });
    const running = await recording(botId);
    expect(running.status).toBe(409);
    expect(running.body).toMatchObject({ error: 'recording_not_ready' });
    const store = stack.deps.recordings();
    const t0 = Date.now();
    for (const [seq, bytes] of pieces(440, 3).entries())
      await store.putPiece(botId, { attempt: 0, seq }, t0, bytes);
    // A replacement's recorder, 5 s after the first one started.
    for (const [seq, bytes] of pieces(660, 2).entries())
      await store.putPiece(botId, { attempt: 1, seq }, t0 + 5000, bytes);
    await processResults(
      stack.resultsDeps(new LocalInsightsEngine()),
      sessionEnded(botId, 'force_leave', new Date().toISOString()),
    );

    const res = await recording(botId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      content_type: 'audio/webm',
      gaps: [expect.objectContaining({ seconds: expect.any(Number) })],
    });
    expect(res.body.duration_seconds).toBeGreaterThan(6.8);
    expect(res.body.duration_seconds).toBeLessThan(7.3);
    const expires = Date.parse(res.body.expires_at);
    expect(expires - Date.now()).toBeGreaterThan(3_500_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(3_600_000);

    const file = await fetch(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('audio/webm');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBe(res.body.size_bytes);
    const probed = webmDuration(bytes);
    expect(Math.abs(probed - res.body.duration_seconds)).toBeLessThan(0.1);

    // The status view tells the length and size, never an address.
    const status = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(status.body.recording).toEqual({
      duration_seconds: res.body.duration_seconds,
      size_bytes: bytes.length,
    });

    const tampered = new URL(res.body.url);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 3600));
    expect((await fetch(tampered)).status).toBe(403);
    const otherBot = res.body.url.replace(botId, '00000000-0000-4000-8000-000000000000');
    expect((await fetch(otherBot)).status).toBe(403);
  });

  it('404 for a session that was not recorded, and for another account’s bot', async () => {
    const plain = await startBot();
    expect((await recording(plain)).status).toBe(404);
    expect((await stack.request('GET', `/api/bot/${plain}/status`, { key })).body.recording).toBeNull();
    const recorded = await startBot({ recording: { audio: true } });
    const { apiKey: other } = await stack.account(10, 'Other');
    expect((await recording(recorded, other)).status).toBe(404);
  });

  it('a recorded session whose bot uploaded nothing completes without a recording, with a warning, then 404', async () => {
    const botId = await startBot({ recording: { audio: true } });
    await processResults(
      stack.resultsDeps(new LocalInsightsEngine()),
      sessionEnded(botId, 'force_leave', new Date().toISOString()),
    );
    const status = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(status.body).toMatchObject({ status: 'completed', recording: null });
    expect(status.body.warnings).toEqual([expect.objectContaining({ code: 'recording_failed' })]);
    expect((await recording(botId)).status).toBe(404);
  });

  it('a recorded session that fails in the room still yields one file (409 until assembled), and recording.ready', async () => {
    const botId = await startBot({
      recording: { audio: true },
      webhook_callback_url: 'https://example.com/hook',
      webhook_events: ['recording.ready'],
    });
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    const store = stack.deps.recordings();
    const t0 = Date.now();
    for (const [seq, bytes] of pieces(440, 3).entries())
      await store.putPiece(botId, { attempt: 0, seq }, t0, bytes);
    // The bot's transcription would not run: the session fails, and its pieces go to the results stage.
    const sent: OutboxMessage[] = [];
    const session = (await stack.deps.sessions.get(botId))!;
    const failing = {
      stores: stack.deps,
      config: stack.config,
      outbox: { send: async (m: OutboxMessage) => void sent.push(m) },
    };
    expect(
      await failBotInRoom(failing, session, {
        error: 'transcription unavailable',
        chargeUsage: false,
        code: 'transcription_unavailable',
      }),
    ).toBe(true);
    expect(sent.map((m) => m.kind)).toEqual(['bot_failed', 'session_failed']);
    expect(queueOf.session_failed).toBe('results');
    const before = await recording(botId);
    expect(before.status).toBe(409);
    expect(before.body.error).toBe('recording_not_ready');

    const queued: unknown[] = [];
    const deps = stack.resultsDeps(new LocalInsightsEngine(), queued);
    await processResults(deps, sent[1] as ResultsMessage);
    const res = await recording(botId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.duration_seconds).toBeGreaterThan(2.8);
    expect(res.body.duration_seconds).toBeLessThan(3.3);
    const status = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(status.body).toMatchObject({
      status: 'failed',
      recording: { duration_seconds: res.body.duration_seconds, size_bytes: res.body.size_bytes },
    });
    const file = Buffer.from(await (await fetch(res.body.url)).arrayBuffer());
    expect(file.length).toBe(res.body.size_bytes);
    // recording.ready, one delivery (one webhook-id), though the message came twice (a redelivery).
    await processResults(deps, sent[1] as ResultsMessage);
    expect(queued.length).toBeGreaterThan(0);
    const ready = (await stack.deps.deliveries.list(botId)).filter((d) => d.event === 'recording.ready');
    expect(ready).toHaveLength(1);
  });

  it("a failed session's file assembled while its data is deleted is taken back", async () => {
    const botId = await startBot({ recording: { audio: true } });
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    const store = stack.deps.recordings();
    for (const [seq, bytes] of pieces(440, 2).entries())
      await store.putPiece(botId, { attempt: 0, seq }, Date.now(), bytes);
    const session = (await stack.deps.sessions.get(botId))!;
    await failBotInRoom(
      { stores: stack.deps, config: stack.config, outbox: { send: async () => {} } },
      session,
      { error: 'no replacement left', chargeUsage: true },
    );
    // The customer's deletion runs while the file is being written: after the pieces were read, before the file lands.
    const racing: RecordingStore = Object.create(store, {
      putFile: {
        value: async (...args: Parameters<RecordingStore['putFile']>) => {
          expect((await stack.request('DELETE', `/api/bot/${botId}/data`, { key })).status).toBe(200);
          await store.putFile(...args);
        },
      },
    });
    await processResults(
      { ...stack.resultsDeps(new LocalInsightsEngine()), recordings: racing },
      sessionFailed(botId),
    );
    expect(await store.listPieces(botId)).toEqual([]);
    expect(await store.describeFile(botId)).toBeUndefined();
    expect((await stack.deps.sessions.get(botId))?.recordingFile).toBeUndefined();
    expect((await recording(botId)).status).toBe(404);
  });

  it('refuses a recording request that is not an object of booleans (400, nothing started)', async () => {
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/recorded`,
        recording: { audio: 'yes', video: true },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_error');
  });
});

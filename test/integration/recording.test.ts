// The recording through the local stack over real HTTP: a recorded session's endpoint answers 409 while it runs, the
// results stage assembles the pieces its bot uploaded (here: real Opus/WebM written by ffmpeg, two tasks as after a
// replacement), then the endpoint gives a signed link the local stack serves, which ffprobe reads; a link tampered
// with or of another bot is refused. A session that was not recorded is a 404, as is another account's bot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failBotInRoom } from '../../core/bots/replace-bot';
import { type OutboxMessage, queueOf } from '../../core/control/outbox';
import { LocalInsightsEngine } from '../../core/engines/rules/insights/local-engine';
import type { InsightsEngine } from '../../core/ports/insights-engine';
import { chunksOf, type RecordingStore } from '../../core/ports/recordings';
import type { TaskRunner } from '../../core/ports/task-runner';
import { type ResultsMessage, sessionEnded, sessionFailed } from '../../core/results/messages';
import { processResults, type ResultsDeps } from '../../core/results/process-results';
import { startTestStack, type TestStack } from '../support/local-stack';
import { requires, skipReason } from '../support/requirements';
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

describe.skipIf(skipReason(requires.ffmpeg()))('GET /api/bot/{bot_id}/recording', { timeout: 60_000 }, () => {
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

  // The customer's deletion runs while the file is being written: before the pieces are read a second time (they go
  // mid-way), or once they were all read, before the file lands (the deletion misses the new file).
  for (const when of ['before', 'after'] as const) {
    it(`a failed session's file assembled while its data is deleted is taken back (deleted ${when} the file's bytes were read)`, async () => {
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
      const deleteData = async () =>
        expect((await stack.request('DELETE', `/api/bot/${botId}/data`, { key })).status).toBe(200);
      async function* deletingAfter(body: AsyncIterable<Uint8Array>) {
        yield* body;
        await deleteData();
      }
      const racing: RecordingStore = Object.create(store, {
        putFile: {
          value: async (...[id, body, file]: Parameters<RecordingStore['putFile']>) => {
            if (when === 'before') await deleteData();
            await store.putFile(id, when === 'after' ? deletingAfter(chunksOf(body)) : body, file);
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
      expect((await recording(botId)).body.error).toBe('data_deleted');
    });
  }

  it('a timeout while the recording is assembled retries that step alone: insights run once, results sent once', async () => {
    const botId = await startBot({
      recording: { audio: true },
      webhook_callback_url: 'https://example.com/hook',
    });
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    const store = stack.deps.recordings();
    for (const [seq, bytes] of pieces(440, 3).entries())
      await store.putPiece(botId, { attempt: 0, seq }, Date.now(), bytes);
    let analyses = 0;
    const engine = new LocalInsightsEngine();
    const counting: InsightsEngine = {
      analyse: (request) => {
        analyses++;
        return engine.analyse(request);
      },
    };
    const queued: unknown[] = [];
    const base = stack.resultsDeps(counting, queued);
    // The results queue as SQS holds it: what the stage sends itself waits to be received.
    const resultsQueue: ResultsMessage[] = [];
    const deps: ResultsDeps = {
      ...base,
      outbox: {
        send: async (m, options) =>
          m.kind === 'assemble_recording' ? void resultsQueue.push(m) : base.outbox.send(m, options),
      },
    };
    const handover = sessionEnded(botId, 'participant_left', new Date().toISOString());

    // Step 1: insights saved on the running session, the recording's step queued; nothing completed or sent yet.
    await processResults(deps, handover);
    expect(analyses).toBe(1);
    expect(resultsQueue.map((m) => m.kind)).toEqual(['assemble_recording']);
    const saved = await stack.deps.sessions.get(botId);
    expect(saved).toMatchObject({ status: 'running', qaPairs: expect.any(Array) });
    const running = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(running.body).toMatchObject({
      status: 'running',
      qa_pairs: null,
      insights: null,
      recording: null,
    });
    expect((await recording(botId)).status).toBe(409);

    // Step 2 runs past the function's time: the store never finishes the file, and Lambda abandons the invocation.
    const stuck: RecordingStore = Object.create(store, {
      putFile: { value: () => new Promise<void>(() => {}) },
    });
    const assemble = resultsQueue.shift()!;
    const abandoned = await Promise.race([
      processResults({ ...deps, recordings: stuck }, assemble, 1).then(() => 'finished'),
      new Promise((r) => setTimeout(() => r('timed out'), 1_000)),
    ]);
    expect(abandoned).toBe('timed out');
    expect((await stack.deps.sessions.get(botId))?.status).toBe('running');

    // The message comes back after the visibility timeout: only the recording step runs again, and completes.
    await processResults(deps, assemble, 2);
    // The sweeper's late resend of the hand-over changes nothing either.
    await processResults(deps, handover, 1);
    expect(analyses).toBe(1);
    const done = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(done.body).toMatchObject({
      status: 'completed',
      exit_reason: 'participant_left',
      qa_pairs: saved?.qaPairs,
      recording: { duration_seconds: expect.any(Number), size_bytes: expect.any(Number) },
    });
    expect(done.body.insights).toEqual(saved?.insights);
    expect((await recording(botId)).status).toBe(200);
    // session_complete once, carrying the recording; the resent hand-over found the session completed and queued no
    // second assembly.
    const completes = (await stack.deps.deliveries.list(botId)).filter((d) => d.event === 'session_complete');
    expect(completes).toHaveLength(1);
    expect(JSON.parse(completes[0]!.payload).recording).toEqual(done.body.recording);
    expect(resultsQueue).toEqual([]);
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

// A 4-hour meeting's recording, 1,440 pieces of 10 s as the uploader stores them, assembled through the file store:
// one playable file of that length that seeks to its end, while the assembly held a bounded amount of memory far
// below the file's size (pieces read a few at a time, the file written through a stream, never held whole). Then the
// same through the local stack with the deployed limits on: the hand-over on the results queue, insights, then the
// recording's own step, and session_complete delivered with the recording.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileRecordingStore } from '../../core/adapters/files/recording-store';
import { createLogger } from '../../core/log';
import type { TaskRunner } from '../../core/ports/task-runner';
import { finaliseRecording } from '../../core/recording/finalise';
import { sessionEnded } from '../../core/results/messages';
import { meetingTestEnv, startTestStack } from '../support/local-stack';
import { peakMemoryGrowth } from '../support/peak-memory';
import { until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';
import { longRecordingPieces, webmFileDuration, webmLoudnessAt } from '../support/webm-audio';

const dir = mkdtempSync(join(tmpdir(), 'recording-assembly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 4 hours at the uploader's RECORDING_PIECE_MS default (10 s). */
const pieces = 1_440;
const mb = (n: number) => (n / 1e6).toFixed(1);

describe('a 4-hour recording through the file store', { timeout: 600_000 }, () => {
  it('becomes one file of 4 hours, seekable to its end, assembled in bounded memory', async () => {
    const store = new FileRecordingStore(dir, { baseUrl: () => 'http://127.0.0.1', key: 'test' });
    const botId = randomUUID();
    const startedAtMs = Date.now() - 4 * 3600_000;
    let seq = 0;
    let stored = 0;
    for (const bytes of longRecordingPieces(pieces)) {
      await store.putPiece(botId, { attempt: 0, seq: seq++ }, startedAtMs, bytes);
      stored += bytes.length;
    }

    const started = performance.now();
    const { result: outcome, peakBytes } = await peakMemoryGrowth(() =>
      finaliseRecording(store, botId, createLogger('silent')),
    );
    const seconds = (performance.now() - started) / 1000;
    if (!('file' in outcome)) throw new Error(outcome.error);
    const file = store.filePath(botId);
    const size = statSync(file).size;
    console.info(
      `[recording] 4 h through the file store: ${pieces} pieces, ${mb(stored)} MB stored, a ${mb(size)} MB file ` +
        `in ${seconds.toFixed(1)} s; most memory held at once +${mb(peakBytes)} MB`,
    );
    expect(size).toBe(outcome.file.sizeBytes);
    expect(outcome.file.gaps).toEqual([]);
    expect(Math.abs(outcome.file.durationSeconds - 4 * 3600)).toBeLessThan(1);
    expect(Math.abs(webmFileDuration(file) - outcome.file.durationSeconds)).toBeLessThan(0.5);
    // Its last seconds play (a seek through the cues to the end of the fourth hour).
    expect(webmLoudnessAt(file, 4 * 3600 - 5, 4)).toBeGreaterThan(1000);
    // Pieces and file never held whole: what the assembly held is a fraction of the file (a few pieces and clusters,
    // and the cue index: ~2 MB; the rest of what is measured is buffers freed but not yet returned). Holding the file
    // alone would be 100 % of it, the pieces as well 200 %.
    expect(peakBytes).toBeLessThan(size / 3);
  });
});

describe('a 4-hour recorded meeting through the local stack, inside the deployed limits', {
  timeout: 600_000,
}, () => {
  it('its hand-over on the results queue completes it with its recording, and session_complete says so', async () => {
    const stack = await startTestStack(meetingTestEnv);
    const hook = await webhookReceiver();
    try {
      // No bot process: the pieces its recorder would have uploaded are stored directly.
      const noBots: TaskRunner = { start: async (id) => ({ taskRef: `test:${id}` }), stop: async () => {} };
      stack.deps.runner = noBots;
      const account = await stack.account(100);
      const join = await stack.request('POST', '/api/bot/join', {
        key: account.apiKey,
        body: {
          provider: 'local',
          room_url: `${stack.baseUrl}/rooms/four-hours-recorded`,
          recording: { audio: true },
          webhook_callback_url: hook.url,
          webhook_events: ['recording.ready'],
        },
      });
      expect(join.status, JSON.stringify(join.body)).toBe(201);
      const botId = join.body.bot_id as string;
      const joinedAt = new Date(Date.now() - 4 * 3600_000);
      await stack.deps.sessions.updateRunning(botId, { joinedAt: joinedAt.toISOString() });
      const store = stack.deps.recordings();
      let seq = 0;
      for (const bytes of longRecordingPieces(pieces))
        await store.putPiece(botId, { attempt: 0, seq: seq++ }, joinedAt.getTime(), bytes);

      // The bot's hand-over, on the results queue as the bot sends it.
      await stack.outbox.send(sessionEnded(botId, 'participant_left', new Date().toISOString()));
      const status = async () =>
        (await stack.request('GET', `/api/bot/${botId}/status`, { key: account.apiKey })).body;
      const done = await until(async () => {
        const s = await status();
        return s.status !== 'running' && s;
      }, 300_000);
      expect(done).toMatchObject({ status: 'completed', warnings: [] });
      expect(Math.abs(done.recording.duration_seconds - 4 * 3600)).toBeLessThan(1);
      const link = await stack.request('GET', `/api/bot/${botId}/recording`, { key: account.apiKey });
      expect(link.status).toBe(200);
      expect(link.body.size_bytes).toBe(done.recording.size_bytes);

      const delivered = () => hook.delivered(account.webhookSecret) as Record<string, unknown>[];
      const complete = await until(() => delivered().find((b) => b.event === 'session_complete'), 120_000);
      expect(complete.recording).toEqual(done.recording);
      // recording.ready too, and no message of the meeting was dead-lettered (each step within its time).
      await until(() => delivered().some((b) => b.event === 'recording.ready'), 60_000);
      expect(stack.queues.messages().filter((m) => m.queue.includes('-dlq'))).toEqual([]);
    } finally {
      await hook.close();
      await stack.close();
    }
  });
});

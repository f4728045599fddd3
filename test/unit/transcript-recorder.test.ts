import { describe, expect, it } from 'vitest';
import { TranscriptRecorder } from '../../bot-task/transcript-recorder';
import type { Utterance } from '../../core/bots/transcript';
import { createLogger } from '../../core/log';
import type { SessionsStore } from '../../core/ports/sessions-store';
import type { TranscriptStore } from '../../core/ports/transcript-store';

const line = (text: string): Utterance => ({
  speaker: 'Ann',
  participant_id: 'a',
  started_at: new Date().toISOString(),
  text,
});

describe('transcript recorder', () => {
  it('keeps saving after a failed write: the failed lines go out with the next flush, in order', async () => {
    const segments: { seq: number; lines: string[] }[] = [];
    let failNext = true;
    const transcripts = {
      saveSegment: async (_bot: string, seq: number, u: Utterance[]) => {
        if (failNext) {
          failNext = false;
          throw new Error('ProvisionedThroughputExceededException');
        }
        segments.push({ seq, lines: u.map((x) => x.text) });
      },
    } as unknown as TranscriptStore;
    const live: string[] = [];
    const sessions = {
      updateRunning: async (_b: string, c: { transcript: string }) => {
        live.push(c.transcript);
        throw new Error('live copy failed'); // must not fail the flush
      },
    } as unknown as SessionsStore;
    const rec = new TranscriptRecorder('bot', { transcripts, sessions }, 60_000, createLogger('silent'));
    rec.add(line('one'));
    await expect(rec.flush()).rejects.toThrow('Provisioned');
    rec.add(line('two'));
    await rec.flush();
    rec.add(line('three'));
    await rec.stop();
    expect(segments).toEqual([
      { seq: 1, lines: ['one', 'two'] },
      { seq: 2, lines: ['three'] },
    ]);
    expect(live.at(-1)).toBe('Ann: one\nAnn: two\nAnn: three');
  });
});

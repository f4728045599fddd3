import { describe, expect, it } from 'vitest';
import { TranscriptRecorder } from '../../bot-task/transcript-recorder';
import type { Utterance } from '../../core/bots/transcript';
import { createLogger } from '../../core/log';
import type { TranscriptStore } from '../../core/ports/transcript-store';
import { quietFor } from '../support/until';

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
    const rec = new TranscriptRecorder('bot', { transcripts }, 60_000, createLogger('silent'));
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
  });

  it('a replacement re-reads the lost bot’s lines at most once per flush interval, and numbers its own after them', async () => {
    const earlier = [line('before one'), line('before two')];
    let reads = 0;
    const transcripts = {
      saveSegment: async () => {},
      loadAttempts: async () => {
        reads++;
        return [earlier];
      },
    } as unknown as TranscriptStore;
    const seqs: [string, number][] = [];
    const rec = new TranscriptRecorder('bot', { transcripts }, 60_000, createLogger('silent'), 1, (saved) =>
      seqs.push(...saved.map((s) => [s.line.text, s.seq] as [string, number])),
    );
    await rec.restore();
    for (const text of ['after one', 'after two', 'after three']) {
      rec.add(line(text));
      await rec.flush();
    }
    await rec.stop();
    expect(reads).toBe(1);
    expect(seqs).toEqual([
      ['after one', 3],
      ['after two', 4],
      ['after three', 5],
    ]);
    expect(rec.utterances.map((u) => u.text)).toEqual([
      'before one',
      'before two',
      'after one',
      'after two',
      'after three',
    ]);
  });

  it('the first save waits for the join write that marks the session, and then writes no mark of its own', async () => {
    const saves: { seq: number; marked?: boolean; at: string }[] = [];
    const events: string[] = [];
    const transcripts = {
      saveSegment: async (_b: string, seq: number, _u: Utterance[], _a: number, o?: { marked?: boolean }) => {
        events.push(`save ${seq}`);
        saves.push({ seq, marked: o?.marked, at: events.join(',') });
      },
    } as unknown as TranscriptStore;
    const rec = new TranscriptRecorder('bot', { transcripts }, 60_000, createLogger('silent'));
    let land = (_: boolean) => {};
    rec.sessionMarked(
      new Promise<boolean>((r) => {
        land = r;
      }).then((v) => {
        events.push('join write');
        return v;
      }),
    );
    rec.add(line('one'));
    const first = rec.flush();
    // Nothing is saved before the join's write has landed.
    await quietFor(20);
    expect(saves).toEqual([]);
    land(true);
    await first;
    rec.add(line('two'));
    await rec.stop();
    expect(events).toEqual(['join write', 'save 1', 'save 2']);
    expect(saves.map((s) => [s.seq, s.marked])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('a join write that failed, or found the session ended, leaves the mark to the first save', async () => {
    for (const write of [Promise.reject(new Error('throttled')), Promise.resolve(false)]) {
      const marks: (boolean | undefined)[] = [];
      const transcripts = {
        saveSegment: async (_b: string, _s: number, _u: Utterance[], _a: number, o?: { marked?: boolean }) =>
          void marks.push(o?.marked),
      } as unknown as TranscriptStore;
      const rec = new TranscriptRecorder('bot', { transcripts }, 60_000, createLogger('silent'));
      rec.sessionMarked(write);
      rec.add(line('one'));
      await rec.stop();
      expect(marks).toEqual([false]);
    }
  });
});

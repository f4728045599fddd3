// Daily's transcription messages told final or interim from their own fields, and, when a transcription someone else
// started sends neither rawResponse nor a finality of its own, from its announced settings and the words themselves:
// an interim never becomes a transcript line.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type JudgedWords,
  markedFinality,
  sendsInterims,
  TranscriptFinality,
  type TranscriptMessage,
  unmarkedQuietMs,
} from '../../bot-task/providers/daily/page/transcript-finality';

const at = '2026-01-01T10:00:00.000Z';
const raw = (participantId: string, text: string, is_final: boolean, speech_final?: boolean) => ({
  participantId,
  text,
  at,
  rawResponse: { is_final, ...(speech_final !== undefined && { speech_final }) },
});
const bare = (participantId: string, text: string, when = at): TranscriptMessage => ({
  participantId,
  text,
  at: when,
});

function judge() {
  const heard: JudgedWords[] = [];
  const f = new TranscriptFinality((w) => heard.push(w));
  const lines = () => heard.filter((w) => w.final).map((w) => `${w.participantId}: ${w.text}`);
  return { f, heard, lines };
}

describe('transcript finality', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads Deepgram is_final in rawResponse, else nothing', () => {
    expect(markedFinality(raw('a', 'x', false))).toBe(false);
    expect(markedFinality(raw('a', 'x', true))).toBe(true);
    expect(markedFinality({ ...bare('a', 'x'), rawResponse: {} })).toBeUndefined();
    expect(markedFinality(bare('a', 'x'))).toBeUndefined();
  });

  it('knows interims from the announced extra options', () => {
    expect(sendsInterims({ extra: { interim_results: true } })).toBe(true);
    expect(sendsInterims({ extra: { interim_results: 'true' } })).toBe(true);
    expect(sendsInterims({ extra: { punctuate: true } })).toBe(false);
    expect(sendsInterims({})).toBe(false);
  });

  it('with rawResponse: its is_final decides, and speech_final goes with a final', () => {
    const { f, heard } = judge();
    f.message(raw('a', 'I think we', false, false));
    f.message(raw('a', 'I think we should ship.', true, true));
    expect(heard).toEqual([
      { participantId: 'a', text: 'I think we', final: false, at },
      { participantId: 'a', text: 'I think we should ship.', final: true, at, speechFinal: true },
    ]);
  });

  it('without rawResponse from a transcription announced without interims: every message is final', () => {
    const { f, heard } = judge();
    f.interims = false;
    f.message(bare('a', 'Hello there.'));
    expect(heard).toEqual([{ participantId: 'a', text: 'Hello there.', final: true, at }]);
  });

  it('without rawResponse while interims may come: each stretch of speech is one line, never one per interim', () => {
    const { f, heard, lines } = judge();
    f.interims = true;
    const first = '2026-01-01T10:00:01.000Z';
    f.message(bare('a', 'I think', first));
    f.message(bare('a', 'I think we', '2026-01-01T10:00:01.400Z'));
    // Deepgram revises the last word as it hears more.
    f.message(bare('b', 'Sure'));
    f.message(bare('a', 'I think we should ship it.', '2026-01-01T10:00:02.000Z'));
    expect(lines()).toEqual([]);
    expect(heard.filter((w) => !w.final)).toHaveLength(4);
    // The next stretch begins with other words: the one before is final at once.
    f.message(bare('a', 'Next week, maybe.'));
    expect(lines()).toEqual(['a: I think we should ship it.']);
    expect(heard.find((w) => w.final)!.at).toBe(first);
    // Quiet for a while: the pending words of each speaker are final.
    vi.advanceTimersByTime(unmarkedQuietMs);
    expect(lines()).toEqual(['a: I think we should ship it.', 'b: Sure', 'a: Next week, maybe.']);
  });

  it('unannounced settings count as maybe-interim; a leaving speaker and a stop settle what is pending', () => {
    const { f, lines } = judge();
    f.message(bare('a', 'Can you'));
    f.message(bare('a', 'Can you hear me?'));
    f.message(bare('b', 'Yes'));
    f.settle('a');
    expect(lines()).toEqual(['a: Can you hear me?']);
    f.settleAll();
    expect(lines()).toEqual(['a: Can you hear me?', 'b: Yes']);
    vi.advanceTimersByTime(unmarkedQuietMs);
    expect(lines()).toHaveLength(2);
  });

  it('a marked message settles the speaker pending words first', () => {
    const { f, lines } = judge();
    f.message(bare('a', 'Before the switch'));
    f.message(raw('a', 'After it.', true));
    expect(lines()).toEqual(['a: Before the switch', 'a: After it.']);
  });
});

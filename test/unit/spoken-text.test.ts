// The reply's turn marker (the model's verdict on whether the person finished) read off the streamed text: never
// spoken, wherever the stream splits it; a reply without one is complete.
import { describe, expect, it } from 'vitest';
import { turnMarkers } from '../../core/adapters/llm/conversation-prompt';
import { SpokenText } from '../../core/adapters/llm/spoken-text';

/** What a SpokenText makes of `chunks`: the text to speak, whether it fell silent, and its verdict. */
function read(chunks: string[], judging = true) {
  const spoken = new SpokenText('Ava', judging);
  let text = '';
  for (const chunk of chunks) {
    text += spoken.push(chunk);
    if (spoken.silent) break;
  }
  text += spoken.end();
  return { text, silent: spoken.silent, unfinished: spoken.unfinished };
}

const { complete, short, long } = turnMarkers;

describe('SpokenText: the turn marker', () => {
  it('drops the complete marker and speaks what follows it, in one chunk or split from it', () => {
    for (const chunks of [
      [`${complete} Thanks, Ann.`],
      [complete, ' Thanks', ', Ann.'],
      [`${complete}Thanks, Ann.`],
      [' \n', complete, '\n', 'Thanks, Ann.'],
    ])
      expect(read(chunks)).toEqual({ text: 'Thanks, Ann.', silent: false, unfinished: undefined });
  });

  it('an unfinished marker makes the reply silent and says which wait: short (cut off), long (thinking)', () => {
    expect(read([short])).toEqual({ text: '', silent: true, unfinished: 'short' });
    expect(read(['  ', long, ' '])).toEqual({ text: '', silent: true, unfinished: 'long' });
    // Words a model writes after an unfinished marker are never spoken.
    expect(read([`\n${short} Go on,`, ' please.'])).toEqual({ text: '', silent: true, unfinished: 'short' });
  });

  it('no marker is complete (a model that ignores the instruction still speaks); a marker alone says nothing', () => {
    expect(read(['Thanks', ', Ann.'])).toEqual({
      text: 'Thanks, Ann.',
      silent: false,
      unfinished: undefined,
    });
    expect(read([complete])).toEqual({ text: '', silent: false, unfinished: undefined });
    expect(read([' ', complete, ' \n'])).toEqual({ text: '', silent: false, unfinished: undefined });
  });

  it('goes with the name prefix and the listen sentinel: the marker first, then either', () => {
    expect(read([complete, ' Av', 'a: Great.'])).toEqual({
      text: 'Great.',
      silent: false,
      unfinished: undefined,
    });
    expect(read([`${complete} [LIS`, 'TEN]'])).toEqual({ text: '', silent: true, unfinished: undefined });
  });

  it('not judging (a greeting, or the person already stopped mid-thought): any marker is dropped, the words spoken', () => {
    expect(read([short, ' Take your time.'], false)).toEqual({
      text: 'Take your time.',
      silent: false,
      unfinished: undefined,
    });
    expect(read([long], false)).toEqual({ text: '', silent: false, unfinished: undefined });
  });
});

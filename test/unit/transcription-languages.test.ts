// The transcription language of a bot that names none follows its voice, always one Deepgram accepts.
import { describe, expect, it } from 'vitest';
import { transcriptionLanguageFor, transcriptionLanguages } from '../../core/transcription-languages';
import { voiceIds } from '../../core/voices';

describe('transcriptionLanguageFor', () => {
  it.each([
    ['Joanna', 'en-US'],
    ['Amy', 'en-GB'],
    ['Olivia', 'en-AU'],
    ['Kajal', 'en-IN'],
    ['Geraint', 'en'],
    ['Ayanda', 'en'],
    ['Lea', 'fr'],
    ['Vicki', 'de'],
    ['Lupe', 'es'],
    ['Camila', 'pt-BR'],
    ['Takumi', 'ja'],
    ['Seoyeon', 'ko-KR'],
  ] as const)('%s → %s', (voice, language) => {
    expect(transcriptionLanguageFor(voice)).toBe(language);
  });

  it('gives every voice a supported language', () => {
    for (const voice of voiceIds)
      expect(transcriptionLanguages, voice).toContain(transcriptionLanguageFor(voice));
  });
});

// The languages the room's transcription can be asked for (`bot_config.language`), and the default for a voice.
import { type VoiceId, voices } from './voices';

/**
 * Deepgram language codes that Daily's transcription (Deepgram nova-2, Daily's default model) accepts:
 * https://developers.deepgram.com/docs/models-languages-overview. Daily passes the code through; one Deepgram does
 * not know fails the transcription (and so the session, transcription_unavailable), so the join refuses it first.
 */
export const transcriptionLanguages = [
  'bg',
  'ca',
  'cs',
  'da',
  'da-DK',
  'de',
  'de-CH',
  'el',
  'en',
  'en-AU',
  'en-GB',
  'en-IN',
  'en-NZ',
  'en-US',
  'es',
  'es-419',
  'et',
  'fi',
  'fr',
  'fr-CA',
  'hi',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'ko-KR',
  'lt',
  'lv',
  'ms',
  'nl',
  'nl-BE',
  'no',
  'pl',
  'pt',
  'pt-BR',
  'ro',
  'ru',
  'sk',
  'sv',
  'sv-SE',
  'th',
  'th-TH',
  'tr',
  'uk',
  'vi',
  'zh',
  'zh-CN',
  'zh-HK',
  'zh-TW',
] as const;
export type TranscriptionLanguage = (typeof transcriptionLanguages)[number];

const known = new Set<string>(transcriptionLanguages);

/**
 * The transcription language of a bot that names none: its voice's language (en-GB for Amy), else that language
 * without its region (fr for Lea's fr-FR), else English.
 */
export function transcriptionLanguageFor(voice: VoiceId): TranscriptionLanguage {
  const language = voices[voice]?.language ?? 'en';
  if (known.has(language)) return language as TranscriptionLanguage;
  const base = language.split('-')[0]!;
  return known.has(base) ? (base as TranscriptionLanguage) : 'en';
}

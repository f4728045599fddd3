// The Amazon Polly voices a bot may use (`bot_config.voice`), with the engine each supports; default Joanna.

export interface VoiceInfo {
  language: string;
  gender: 'female' | 'male';
  /** Polly's neural engine supports this voice; otherwise the standard engine is used. */
  neural: boolean;
}

export const voices = {
  Joanna: { language: 'en-US', gender: 'female', neural: true },
  Matthew: { language: 'en-US', gender: 'male', neural: true },
  Ivy: { language: 'en-US', gender: 'female', neural: true },
  Kendra: { language: 'en-US', gender: 'female', neural: true },
  Kimberly: { language: 'en-US', gender: 'female', neural: true },
  Salli: { language: 'en-US', gender: 'female', neural: true },
  Joey: { language: 'en-US', gender: 'male', neural: true },
  Justin: { language: 'en-US', gender: 'male', neural: true },
  Kevin: { language: 'en-US', gender: 'male', neural: true },
  Ruth: { language: 'en-US', gender: 'female', neural: true },
  Stephen: { language: 'en-US', gender: 'male', neural: true },
  Danielle: { language: 'en-US', gender: 'female', neural: true },
  Gregory: { language: 'en-US', gender: 'male', neural: true },
  Amy: { language: 'en-GB', gender: 'female', neural: true },
  Emma: { language: 'en-GB', gender: 'female', neural: true },
  Brian: { language: 'en-GB', gender: 'male', neural: true },
  Arthur: { language: 'en-GB', gender: 'male', neural: true },
  Olivia: { language: 'en-AU', gender: 'female', neural: true },
  Russell: { language: 'en-AU', gender: 'male', neural: false },
  Aria: { language: 'en-NZ', gender: 'female', neural: true },
  Ayanda: { language: 'en-ZA', gender: 'female', neural: true },
  Niamh: { language: 'en-IE', gender: 'female', neural: true },
  Kajal: { language: 'en-IN', gender: 'female', neural: true },
  Raveena: { language: 'en-IN', gender: 'female', neural: false },
  Geraint: { language: 'en-GB-WLS', gender: 'male', neural: false },
  Lea: { language: 'fr-FR', gender: 'female', neural: true },
  Remi: { language: 'fr-FR', gender: 'male', neural: true },
  Vicki: { language: 'de-DE', gender: 'female', neural: true },
  Daniel: { language: 'de-DE', gender: 'male', neural: true },
  Lucia: { language: 'es-ES', gender: 'female', neural: true },
  Sergio: { language: 'es-ES', gender: 'male', neural: true },
  Lupe: { language: 'es-US', gender: 'female', neural: true },
  Pedro: { language: 'es-US', gender: 'male', neural: true },
  Mia: { language: 'es-MX', gender: 'female', neural: true },
  Camila: { language: 'pt-BR', gender: 'female', neural: true },
  Bianca: { language: 'it-IT', gender: 'female', neural: true },
  Laura: { language: 'nl-NL', gender: 'female', neural: true },
  Takumi: { language: 'ja-JP', gender: 'male', neural: true },
  Seoyeon: { language: 'ko-KR', gender: 'female', neural: true },
} as const satisfies Record<string, VoiceInfo>;

export type VoiceId = keyof typeof voices;
export const voiceIds = Object.keys(voices) as [VoiceId, ...VoiceId[]];
export const defaultVoice: VoiceId = 'Joanna';

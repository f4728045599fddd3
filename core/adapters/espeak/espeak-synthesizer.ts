// Synthesizer on Debian's espeak-ng, offline: the local room's voice in a recording (the room page speaks the bot's
// lines with the browser's speech synthesis, which no page can capture). 16-bit mono PCM, as Polly's.
import { execFile } from 'node:child_process';
import type { SynthesizedSpeech, Synthesizer } from '../../ports/synthesizer';
import { type VoiceId, voices } from '../../voices';

/** The PCM and rate of a 16-bit mono WAV file (its `fmt ` and `data` chunks). */
export function wavPcm(wav: Buffer): SynthesizedSpeech {
  let at = 12;
  let sampleRate = 0;
  while (at + 8 <= wav.length) {
    const id = wav.toString('ascii', at, at + 4);
    // espeak-ng writes to a pipe, so its sizes are 0 or all ones: the data chunk runs to the end.
    const size = wav.readUInt32LE(at + 4);
    if (id === 'fmt ') sampleRate = wav.readUInt32LE(at + 12);
    if (id === 'data') {
      const end = size > 0 && at + 8 + size <= wav.length ? at + 8 + size : wav.length;
      const pcm = wav.subarray(at + 8, end - ((end - at - 8) % 2));
      return { pcm, sampleRate };
    }
    at += 8 + size;
  }
  throw new Error('not a WAV file with a data chunk');
}

/** espeak-ng's voice for a Polly voice: its language, and a male variant for a male voice. */
export function espeakVoiceFor(voice: string): string {
  const info = voices[voice as VoiceId];
  if (!info) return 'en-us';
  const language = info.language.toLowerCase();
  return info.gender === 'male' ? `${language}+m3` : `${language}+f3`;
}

export class EspeakSynthesizer implements Synthesizer {
  constructor(private readonly command = 'espeak-ng') {}

  synthesize(text: string, voice: string): Promise<SynthesizedSpeech> {
    return new Promise((resolve, reject) => {
      execFile(
        this.command,
        ['-v', espeakVoiceFor(voice), '-s', '160', '--stdout', text],
        { encoding: 'buffer', maxBuffer: 1 << 25, timeout: 15_000 },
        (err, stdout) => {
          if (err) return reject(new Error(`${this.command} could not say the line: ${err.message}`));
          try {
            resolve(wavPcm(stdout));
          } catch (e) {
            reject(e);
          }
        },
      );
    });
  }
}

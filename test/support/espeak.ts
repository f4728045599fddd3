// Offline speech for tests: Debian's espeak-ng says a text into a WAV file; as a Synthesizer, its 16-bit PCM.
import { execFileSync } from 'node:child_process';
import { wavPcm } from '../../core/adapters/espeak/espeak-synthesizer';
import type { Synthesizer } from '../../core/ports/synthesizer';

export { wavPcm };

/**
 * `text` spoken by espeak-ng (`voice` one of its voices, e.g. en-us, en-gb+m3), as a WAV file with true sizes
 * (written to a pipe, espeak-ng's header has placeholders).
 */
export function espeakWav(text: string, voice = 'en-us'): Buffer {
  const raw = execFileSync('espeak-ng', ['-v', voice, '-s', '160', '--stdout', text], { maxBuffer: 1 << 24 });
  const { pcm, sampleRate } = wavPcm(raw);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** The bot's voice in tests: espeak-ng instead of Polly. */
export const espeakSynthesizer: Synthesizer = {
  async synthesize(text) {
    return wavPcm(espeakWav(text, 'en-gb'));
  },
};

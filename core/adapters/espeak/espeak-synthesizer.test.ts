import { describe, expect, it } from 'vitest';
import { requires, skipReason } from '../../../test/support/requirements';
import { EspeakSynthesizer, espeakVoiceFor, wavPcm } from './espeak-synthesizer';

describe('espeak-ng synthesizer', () => {
  it('picks a voice of the Polly voice’s language and gender', () => {
    expect(espeakVoiceFor('Joanna')).toBe('en-us+f3');
    expect(espeakVoiceFor('Brian')).toBe('en-gb+m3');
    expect(espeakVoiceFor('Nobody')).toBe('en-us');
  });

  it.skipIf(skipReason(requires.espeakNg()))('says a line as 16-bit PCM with its rate', async () => {
    const { pcm, sampleRate } = await new EspeakSynthesizer().synthesize(
      'This meeting is being recorded.',
      'Joanna',
    );
    expect(sampleRate).toBe(22_050);
    // About two seconds of speech, not silence.
    expect(pcm.length / 2 / sampleRate).toBeGreaterThan(1);
    let peak = 0;
    for (let i = 0; i + 1 < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
    expect(peak).toBeGreaterThan(3000);
  });

  it('fails loudly when the command is missing', async () => {
    await expect(new EspeakSynthesizer('no-such-espeak').synthesize('hi', 'Joanna')).rejects.toThrow(
      /no-such-espeak could not say the line/,
    );
  });

  it('refuses bytes that are not a WAV file with data', () => {
    expect(() => wavPcm(Buffer.from('RIFF....WAVEjunk'))).toThrow(/not a WAV file/);
  });
});

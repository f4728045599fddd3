// Test helpers for insights: reading a summary back into sentences and tracing them to the transcript.
import type { Utterance } from '../../../core/bots/transcript';
import { splitSentences } from '../../../core/engines/rules/insights/text';

/** Sentences of a summary in any of its formats (prose, "- " bullets, "1. " items, "Speaker: " prefixes). */
export function summarySentences(summary: string, speakers: readonly string[] = []): string[] {
  return summary
    .split('\n')
    .map((line) => line.replace(/^(?:- |\d+\. )/, ''))
    .map((line) => {
      const speaker = speakers.find((s) => line.startsWith(`${s}: `));
      return speaker ? line.slice(speaker.length + 2) : line;
    })
    .flatMap((line) => splitSentences(line));
}

/** Letters and digits only, without hesitations and [stage notes]: what a tidied sentence keeps. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/[’‘]/g, "'")
    .split(/[^a-z0-9']+/)
    .filter((w) => w && !/^(?:um+|uh+|erm|uhm|er)$/.test(w))
    .join(' ');
}

/** The sentence (maybe cut with "…") was said in the transcript, word for word apart from hesitations. */
export function isFromTranscript(sentence: string, utterances: readonly Utterance[]): boolean {
  const said = normalise(utterances.map((u) => u.text).join(' '));
  const wanted = normalise(sentence.replace(/…$/, ''));
  return wanted.length > 0 && said.includes(wanted);
}

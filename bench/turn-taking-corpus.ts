// The turn-taking benchmark's corpus: multi-sentence answers (one person's contiguous speech of two sentences or more)
// with what was said to them just before, from our own interviews (test fixtures, always present) and from real
// conversations in ../shared/data (the Changelog interviews and the AMI/ICSI meetings of transcripts/, the QMSum
// meetings of qmsum/), which a user's clone lacks: those parts are then skipped, with the reason.
import { existsSync } from 'node:fs';
import type { Utterance } from '../core/bots/transcript';
import { buildTurns, splitSentences, turnText } from '../core/engines/rules/insights/text';
import { interview } from '../test/fixtures/insights/fixtures';
import { type Persona, personaInterview } from '../test/fixtures/insights/personas';
import { roleInterviews, roleTranscript } from '../test/fixtures/insights/role-interviews';
import { playInterview, scriptedInterviews } from '../test/fixtures/insights/scripted-interviews';
import { loadRealTranscripts, realTranscriptsDir, toUtterances } from '../test/fixtures/insights/transcripts';
import { loadMeetings, qmsumDir } from './summaries';

export type CorpusPart = 'our interviews' | 'real interviews' | 'real meetings' | 'qmsum meetings';

export interface Answer {
  part: CorpusPart;
  /** Where it comes from: the conversation's name and the answer's place in it. */
  source: string;
  /** What the other side said just before (the bot's question in an interview); empty at a conversation's start. */
  asked: string;
  /** The answer, sentence by sentence, as the transcript has it (tidied for a recognizer: see spokenText). */
  sentences: string[];
}

export interface Corpus {
  answers: Answer[];
  /** Parts left out, and why. */
  skipped: string[];
}

/**
 * A transcript's text as a streaming recognizer could have produced it: stage notes ("[laughs]") dropped, a
 * transcriber's dash read as a comma, an ellipsis before a new sentence as its end and inside one as nothing.
 * Hesitations ("um") stay: the recognizer drops them later (they mark where a speaker hesitates).
 */
export function spokenText(text: string): string {
  return text
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\s+[-–—]+\s+/g, ', ')
    .replace(/(\.\.\.|…)(?=\s+["'“]?[A-Z]|\s*$)/g, '.')
    .replace(/\.\.\.|…/g, ' ')
    .replace(/\s+([,.?!])/g, '$1')
    .replace(/,+/g, ',')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A sentence with words a recognizer can hear: not a stage note or a lone hesitation. */
const hasWords = (s: string) => /[a-z0-9]{2,}/i.test(s.replace(/\b(?:um+|uh+|erm|er|hmm+|mm+)\b/gi, ''));

/**
 * The answers of a conversation: each turn (buildTurns: one speaker's consecutive lines, a sentence broken off by a
 * back-channel stitched back) of two sentences or more, other than the bot's, with the turn before it as what was asked.
 */
export function answersOf(part: CorpusPart, name: string, lines: readonly Utterance[]): Answer[] {
  const turns = buildTurns(lines);
  const out: Answer[] = [];
  turns.forEach((turn, i) => {
    if (turn.isBot) return;
    const sentences = splitSentences(spokenText(turnText(turn))).filter(hasWords);
    if (sentences.length < 2) return;
    const before = turns[i - 1];
    out.push({
      part,
      source: `${name}#${i}`,
      asked: before ? spokenText(turnText(before)) : '',
      sentences,
    });
  });
  return out;
}

const personas: Persona[] = ['strong', 'bluffer', 'evasive', 'rambling'];

/** Our own interviews: the test fixtures' job interviews, the bot's lines included. */
async function ourInterviews(): Promise<Answer[]> {
  const conversations: [string, Utterance[]][] = [
    ['interview-good', interview('good')],
    ['interview-poor', interview('poor')],
    ...personas.map((p): [string, Utterance[]] => [`persona-${p}`, personaInterview(p)]),
    ...roleInterviews.map((r): [string, Utterance[]] => [`role-${r.name}`, roleTranscript(r)]),
  ];
  for (const s of scriptedInterviews)
    conversations.push([`scripted-${s.name}`, (await playInterview(s)).transcript]);
  return conversations.flatMap(([name, lines]) => answersOf('our interviews', name, lines));
}

export async function loadCorpus(): Promise<Corpus> {
  const answers = await ourInterviews();
  const skipped: string[] = [];
  const real = loadRealTranscripts();
  if (real.length === 0) skipped.push(`real interviews and meetings: ${realTranscriptsDir} is absent`);
  for (const t of real)
    answers.push(
      ...answersOf(
        t.kind === 'interview' ? 'real interviews' : 'real meetings',
        t.name,
        toUtterances(t.turns),
      ),
    );
  const meetings = loadMeetings();
  if (meetings.length === 0 || !existsSync(qmsumDir)) skipped.push(`QMSum meetings: ${qmsumDir} is absent`);
  for (const m of meetings) answers.push(...answersOf('qmsum meetings', m.name, toUtterances(m.turns)));
  return { answers, skipped };
}

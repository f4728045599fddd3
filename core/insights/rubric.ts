// The evaluation rubric both insights engines follow: what overall_score means and how each question is rated.
// The local engine applies it with measurable rules (evaluation.ts), the model engines get it in their prompt
// (rubricText); README.md in this folder shows the same tables.
import type { answeredLevels, scoreBases } from '../schemas/results';

export type ScoreBasis = (typeof scoreBases)[number];
export type Answered = (typeof answeredLevels)[number];
export type Quality = 1 | 2 | 3 | 4 | 5;

export interface Anchor {
  score: number;
  means: string;
}

/** An interview: a lead (the bot, a host) puts questions and others answer; the answers are judged. */
export const interviewAnchors: readonly Anchor[] = [
  {
    score: 90,
    means:
      'Every question answered directly and specifically: figures, named systems or tools, outcomes, and what the speaker did themselves. Nothing dodged.',
  },
  { score: 70, means: 'Most questions answered with some specifics; one or two answers general or thin.' },
  {
    score: 50,
    means:
      'Questions answered, but mostly in general terms (few figures, names or outcomes), or one question dodged.',
  },
  {
    score: 30,
    means:
      'Answers vague, or confident but empty (buzzwords, superlatives, no evidence); or several questions dodged or unanswered.',
  },
  {
    score: 10,
    means:
      'Almost nothing answered: refusals, "I don\'t remember", "it depends" with nothing after it, questions turned back on the asker.',
  },
];

/** A working meeting (no question agenda): what it produced is judged, not one person's answers. */
export const meetingAnchors: readonly Anchor[] = [
  {
    score: 90,
    means:
      'Clear outcomes: decisions and next steps with owners; questions raised got answers; concrete figures, dates and names; everyone contributed.',
  },
  {
    score: 70,
    means:
      'Some decisions or next steps; most questions answered; some specifics; participation mostly even.',
  },
  {
    score: 50,
    means:
      'Discussion with few outcomes; several questions left open; mostly general talk, or one voice leading.',
  },
  {
    score: 30,
    means: 'Hardly any outcome or specifics; questions left open; one voice dominated, or much filler.',
  },
  { score: 10, means: 'No outcome, nothing resolved, little real exchange.' },
];

export const answeredScale: Readonly<Record<Answered, string>> = {
  yes: 'the answer addresses the question',
  partly: 'it touches the question but hedges, stays thin, or drifts away from it',
  no: 'no answer, or the question was dodged: refused, "I don\'t remember", "it depends" with nothing after it, or a question turned back on the asker',
};

export const qualityScale: Readonly<Record<Quality, string>> = {
  5: "specific and complete: figures, named things, an outcome, and the speaker's own actions",
  4: 'specific: at least two of those kinds of evidence',
  3: 'adequate: one concrete detail, or a plain direct answer to a yes/no question',
  2: 'general: claims without evidence (buzzwords, superlatives), or a thin answer',
  1: 'no substance: a dodge, a refusal, a non-answer',
};

/** Points a question earns on the interview basis; overall_score is (mostly) their mean (README "Evaluation"). */
export const qualityPoints: Readonly<Record<Quality, number>> = { 1: 15, 2: 35, 3: 55, 4: 75, 5: 95 };

/** A 'yes' earns its quality's points; 'partly' three quarters of them, at most quality 3; 'no' nothing. */
export function questionPoints(answered: Answered, quality: Quality): number {
  if (answered === 'no') return 0;
  if (answered === 'partly') return 0.75 * qualityPoints[Math.min(quality, 3) as Quality];
  return qualityPoints[quality];
}

/** Words for the evidence quote of a question assessment; longer quotes are cut with "…". */
export const evidenceWords = 20;

const anchorLines = (anchors: readonly Anchor[]) => anchors.map((a) => `  ${a.score}: ${a.means}`);

/** The rubric as a model prompt states it (the Bedrock engine, and any other model engine). */
export function rubricText(): string {
  return [
    'Scoring rubric.',
    'score_basis: "interview" when a lead (the bot or a host) puts questions and others answer them; "meeting" for a working meeting without such an agenda (then the outcomes are judged, not answers).',
    'overall_score (0-100) on the interview basis; use the anchors and interpolate:',
    ...anchorLines(interviewAnchors),
    'overall_score on the meeting basis:',
    ...anchorLines(meetingAnchors),
    'Each question put to the participants (answered or not) is assessed:',
    `  answered: ${(Object.keys(answeredScale) as Answered[]).map((k) => `"${k}" = ${answeredScale[k]}`).join('; ')}.`,
    `  quality 1-5: ${(Object.keys(qualityScale) as `${Quality}`[])
      .sort()
      .reverse()
      .map((k) => `${k} = ${qualityScale[Number(k) as Quality]}`)
      .join('; ')}.`,
    `  evidence: a quote of at most ${evidenceWords} words from the answer that shows the rating (the dodge itself for a dodged question; empty when nothing was said).`,
    'Confidence is not evidence: an answer full of superlatives and buzzwords without figures, names or outcomes is quality 2 at most.',
    'Each strength and each weakness must cite evidence from this transcript: a short quote in double quotes, or a concrete fact (who, what, how many). No generic sentences.',
  ].join('\n');
}

// The summary of an interview without a model: who interviewed whom, then a digest per question with the facts the
// candidate gave (figures, durations, named tools and products kept whole, outcomes), then how it closed. A hiring
// manager reads what was said, not the meeting's key phrases.

import { isSmallTalk } from '../conversation/small-talk';
import { answerSignals, namedThings } from './answer-signals';
import type { ExtractedPair, QaExtraction } from './qa-pairs';
import { asRequested } from './questions';
import type { Line } from './summary';
import { asSentence, cleanSpoken, isFragment, reportedSpeech, withSubject } from './summary-voice';
import type { Turn } from './text';
import { endsSentence, quote, splitSentences, tidySentence, truncateWords, wordCount } from './text';

/** Sentences of one answer the digest keeps (those with the most facts, in the order said). */
const sentencesPerAnswer = 3;
const wordsPerAnswer = 70;
/** A run-on spoken sentence is cut here ("…"). */
const maxSentenceWords = 35;
const durationOrFigure =
  /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|half|double|twice|percent)\b/i;
const outcome =
  /\b(?:reduc\w*|cut|dropp?\w*|fell|increas\w*|improv\w*|sav(?:e|ed|es|ing)|shipp?\w*|launch\w*|fix(?:ed|es)?|resolv\w*|caught|prevent\w*|faster|fewer|went from|to zero|grew|led|built|designed|migrated|automated)\b/i;
/** How many facts a sentence holds: figures and durations, named things (whole), an outcome. */
const factWeight = (sentence: string): number =>
  (durationOrFigure.test(sentence) ? 2 : 0) + namedThings(sentence).length + (outcome.test(sentence) ? 1 : 0);
/** A speaker's label without what follows in brackets: "Hon. Bill Blair (Minister of Public Safety)" → "Hon. Bill Blair". */
export const shortName = (label: string) => label.replace(/\s*\(.*\)\s*$/, '').trim() || label;
const firstName = (label: string) => shortName(label).split(/\s+/)[0] ?? label;
/** Closed with a period unless a quote's own mark closes it. */
const closed = (text: string) => (endsSentence(text) ? text : `${text}.`);

function questionLabel(question: string): string {
  const q = question.replace(/^…/, '').trim();
  const last = (splitSentences(q).at(-1) ?? q).replace(/…$/, '?');
  const label = truncateWords(last, 16);
  return quote(asRequested(label));
}

/** How a sentence of an answer is reported: "I" becomes the candidate, after an opening phrase too; names keep their capital. */
interface Voice {
  speaker: string;
  names: ReadonlySet<string>;
}

/** One sentence of an answer in the third person, or quoted as said when it has no verb to report ("About 140 units an hour."). */
function reported(sentence: string, voice: Voice, first: boolean): string {
  const r = reportedSpeech(sentence, voice.speaker, new Set(), {
    within: true,
    names: voice.names,
    clausesOnly: true,
  });
  if (r) return truncateWords(r, maxSentenceWords);
  const said = truncateWords(tidySentence(sentence), maxSentenceWords);
  return closed(`${voice.speaker} ${first ? 'answered' : 'added'} ${quote(said)}`);
}

/** The facts of one answer, as the reader wants them: reported in the third person, the sentences with most facts. */
function digestOf(answer: string, voice: Voice): string {
  const sentences = splitSentences(answer).filter((s) => wordCount(s) > 0 && !isSmallTalk(s));
  // An answer short enough is kept whole: every sentence of a short story is a fact ("We won them back in March.").
  const whole =
    sentences.length <= sentencesPerAnswer &&
    sentences.reduce((n, s) => n + wordCount(s), 0) <= wordsPerAnswer;
  const ranked = sentences
    .map((s, i) => ({ s, i, w: whole ? 1 : factWeight(s) }))
    .filter((x) => x.w > 0)
    .sort((a, b) => b.w - a.w || a.i - b.i);
  const chosen: typeof ranked = [];
  let words = 0;
  for (const x of ranked) {
    if (chosen.length >= sentencesPerAnswer) break;
    const n = wordCount(x.s);
    if (chosen.length > 0 && words + n > wordsPerAnswer) continue;
    chosen.push(x);
    words += n;
  }
  // A story's first sentence sets the scene ("A hospital lost access…"): kept when there is room.
  const opening = sentences[0];
  if (opening && chosen.length > 0 && chosen.length < sentencesPerAnswer && !chosen.some((x) => x.i === 0)) {
    const n = wordCount(opening);
    if (words + n <= wordsPerAnswer) chosen.push({ s: opening, i: 0, w: 0 });
  }
  // No fact in it: the answer as said, so a reader sees how thin it was.
  if (chosen.length === 0)
    return closed(`${voice.speaker} answered ${quote(tidySentence(truncateWords(answer, 25)))}`);
  return chosen
    .sort((a, b) => a.i - b.i)
    .map((x, k) => reported(x.s, voice, k === 0))
    .filter(Boolean)
    .join(' ');
}

/** "Yes, I have had a licence since 2021." → "yes", "I have had a licence since 2021.". */
const yesOrNo = /^(yes|yeah|yep|no|nope)\b[,.!]?\s+(.+)$/i;

/**
 * A short answer in the third person when it is a sentence about the candidate ("Dariusz answered yes and has had
 * a licence since 2021."); else null, and it is quoted as said ("Patiently.").
 */
function shortAnswer(answer: string, voice: Voice): string | null {
  const said = splitSentences(answer.trim());
  if (said.length !== 1) return null;
  const m = yesOrNo.exec(said[0]!);
  const clause = cleanSpoken(m ? m[2]! : said[0]!);
  const own = withSubject(clause, voice.speaker, { within: true });
  if (!own || isFragment(clause)) return null;
  if (!m) return asSentence(own);
  if (!own.startsWith(`${voice.speaker} `)) return null;
  const yes = /^(?:yes|yeah|yep)$/i.test(m[1]!) ? 'yes' : 'no';
  return asSentence(`${voice.speaker} answered ${yes} and ${own.slice(voice.speaker.length + 1)}`);
}

export interface InterviewDigestInput {
  turns: readonly Turn[];
  qa: QaExtraction;
  /** Questions that were dodged (the evaluation's reading), by their text. */
  dodged?: ReadonlySet<string>;
  /** Questions answered by a question back ("Any questions for me?" – "How does the team plan?"), by their text. */
  askedBack?: ReadonlyMap<string, string>;
}

/**
 * The interview's lines: "Iris interviewed Sam Carter (3 questions, all answered).", then per question its facts
 * ("On "Why do you want this job?": Sam wants to build …"), then the closing ("To close, Iris said: "…"").
 */
export function interviewDigest({
  turns,
  qa,
  dodged = new Set(),
  askedBack = new Map(),
}: InterviewDigestInput): Line[] {
  // The interviewer's questions: not those the candidate put to the interviewer.
  const put = qa.exchanges.filter((_e, i) => !qa.asked[i]?.toBot);
  const asker = mostCommon(put.map((e) => e.askedBy));
  const exchanges = put.filter((e) => e.askedBy === asker);
  const answerer = mostCommon(exchanges.flatMap((e) => (e.answeredBy ? [e.answeredBy] : [])));
  const candidate = answerer ? shortName(answerer) : 'the candidate';
  const subject = answerer ? firstName(answerer) : 'The candidate';
  // Words of the names the candidate said ("Monzo"): a sentence opening with one keeps its capital.
  const names = new Set(exchanges.flatMap((e) => namedThings(e.answer).flatMap((n) => n.split(' '))));
  const answered = exchanges.filter(
    (e) => (e.answer && !dodged.has(e.question)) || askedBack.has(e.question),
  ).length;
  const count = exchanges.length === 1 ? '1 question' : `${exchanges.length} questions`;
  const tally =
    answered === exchanges.length
      ? exchanges.length === 1
        ? 'answered'
        : 'all answered'
      : `${answered} answered`;
  const overview = `${shortName(asker ?? 'The interviewer')} interviewed ${candidate} (${count}, ${tally}).`;
  const lines: Line[] = [{ section: 'overview', text: overview, rank: 0 }];
  const voice = { speaker: subject, names };
  for (const e of exchanges) {
    const text = questionLine(e, voice, dodged.has(e.question), askedBack.get(e.question));
    lines.push({ section: 'point', text, rank: 1 });
  }
  const close = closingLine(turns, qa, asker, subject);
  if (close) lines.push({ section: 'actions', text: close, rank: 2 });
  return lines;
}

function questionLine(e: ExtractedPair, voice: Voice, dodged: boolean, back?: string): string {
  const q = questionLabel(e.question);
  const subject = voice.speaker;
  if (back && !e.answer) return closed(`On ${q}: ${subject} asked ${quote(back)}`);
  if (!e.answer) return `On ${q}: no answer.`;
  if (dodged) return `On ${q}: ${subject} did not answer (${quote(truncateWords(e.answer, 14))}).`;
  // A short answer is the fact itself ("Sam Carter.", "In March."): in the third person, or given as said.
  if (wordCount(e.answer) <= 12 && answerSignals(e.answer, e.question).kinds <= 1) {
    const own = shortAnswer(e.answer, voice);
    return own ? `On ${q}: ${own}` : closed(`On ${q}: ${subject} answered ${quote(tidySentence(e.answer))}`);
  }
  return `On ${q}: ${digestOf(e.answer, voice)}`;
}

/** Greetings, thanks and "that was my last question": what any close says; the rest is what this one said. */
const stockClosing =
  /^(?:that was my last question|(?:that is helpful|that's helpful|got it|great|understood|no problem|sure|let's move on)[,.!]?(?:\s*(?:thanks|thank you))?|thank(?:s| you)(?: (?:very|so) much)?(?: for your time| for joining| all for your time)?(?:, \p{L}+)?|all the best(?:, \p{L}+)?|(?:good)?bye|have a (?:great|good|nice) (?:day|one))[.!]*$/iu;

function closingLine(
  turns: readonly Turn[],
  qa: QaExtraction,
  asker: string | null,
  subject: string,
): string | null {
  const lastAsked = qa.exchanges.at(-1)?.turn ?? -1;
  const later = turns.slice(lastAsked + 1);
  const closer = later.filter((t) => t.speaker === asker).at(-1);
  const said = closer
    ? closer.sentences.map((s) => s.text).filter((s) => !stockClosing.test(s.trim()) && !/\?$/.test(s.trim()))
    : [];
  // What the candidate asked at the end ("What are the next steps?").
  const asked = later
    .filter((t) => t.speaker !== asker)
    .flatMap((t) => t.sentences.map((s) => s.text).filter((s) => /\?$/.test(s.trim())));
  const parts: string[] = [];
  if (asked.length) parts.push(`${subject} asked ${quote(truncateWords(asked.join(' '), 25))}`);
  const who = shortName(asker ?? 'The interviewer');
  // The acknowledgement before the closing ("Great, thanks.") is not what the close said.
  const content = said.filter((s) => wordCount(s) > 3);
  if (content.length) parts.push(`${who} said ${quote(truncateWords(content.join(' '), 40))}`);
  if (parts.length === 0) return closer ? `${who} closed the interview and thanked ${subject}.` : null;
  const text = `To close, ${parts.join('; ')}`;
  return /[.!?]["”]$/.test(text) ? text : `${text}.`;
}

function mostCommon(values: readonly string[]): string | null {
  const count = new Map<string, number>();
  for (const v of values) count.set(v, (count.get(v) ?? 0) + 1);
  return [...count.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

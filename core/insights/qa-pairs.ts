// Q&A pairing of the local engine: questions put to others, each with the answer of the next speaker.
import { isYesNoQuestion, questionKind } from './questions';
import {
  contentStems,
  isAcknowledgement,
  type Turn,
  truncateWords,
  turnText,
  wordCount,
  words,
} from './text';

export interface QaOptions {
  /** Answers longer than this are cut at a sentence end (the evaluation still sees the full length). */
  maxAnswerWords: number;
  /** Questions longer than this keep their last words ("… <question>"). */
  maxQuestionWords: number;
}

export const defaultQaOptions: QaOptions = { maxAnswerWords: 120, maxQuestionWords: 60 };

/** A question a speaker put to the others, at the end of their turn. */
export interface PosedQuestion {
  text: string;
  /** First and last sentence of the question within its turn. */
  from: number;
  to: number;
  utterance: number;
  /** The next other speaker is the bot: the question was put to the bot, not to the participants. */
  toBot: boolean;
}

export interface ExtractedPair {
  turn: number;
  question: string;
  answer: string;
  askedBy: string;
  answeredBy: string;
  askedByBot: boolean;
  answeredByBot: boolean;
  /** Index of the utterance holding the question (its started_at is `asked_at`). */
  utterance: number;
  /** Words of the answer as collected, before the cut to `maxAnswerWords` (collecting stops past it). */
  answerWords: number;
}

export interface QaExtraction {
  pairs: ExtractedPair[];
  /** Questions put to others, answered or not. */
  asked: PosedQuestion[];
}

/**
 * Words a turn may carry after its last question and still be waiting for an answer; beyond that the
 * speaker went on talking and the question was rhetorical or self-answered.
 */
const maxWordsAfterQuestion = 35;
/** An asker's own turn this short (and asking nothing new) is a clarification, not the end of the exchange. */
const maxClarificationWords = 25;
/** How many turns after a question an answer is looked for. */
const answerSearchTurns = 6;
/** A question text needs this many content words (an echo such as "Is that so?" has none). */
const minQuestionContentWords = { human: 2, bot: 1 };

/** The question a turn leaves to the others, or null when it asks none (or only tags, echoes, rhetoric). */
export function posedQuestion(turn: Turn, options: QaOptions = defaultQaOptions): PosedQuestion | null {
  const kinds = turn.sentences.map((s) => questionKind(s.text));
  const last = kinds.lastIndexOf('question');
  if (last === -1) return null;
  if (wordCount(turnText(turn, last + 1)) > maxWordsAfterQuestion) return null;

  let from = last;
  // Questions asked in a row belong together ("What does HireVue do? Is it one of these systems?").
  while (from > 0 && kinds[from - 1] === 'question' && wordCount(turnText(turn, from - 1, last + 1)) <= 60) {
    from--;
  }
  // A short question leans on the sentence before it ("Now you're a director at HireVue. Is that correct?").
  if (from > 0 && wordCount(turnText(turn, from, last + 1)) < 8 && kinds[from - 1] === null) from--;

  let text = turnText(turn, from, last + 1);
  const ws = text.split(/\s+/);
  if (ws.length > options.maxQuestionWords) text = `…${ws.slice(-options.maxQuestionWords).join(' ')}`;
  const minContent = turn.isBot ? minQuestionContentWords.bot : minQuestionContentWords.human;
  // Echoes are short ("Is that so?"); a longer question may use only common words ("Could you tell me about your last project?").
  if (contentStems(text).length < minContent && wordCount(text) < 6) return null;
  return { text, from, to: last, utterance: turn.sentences[last]!.utterance, toBot: false };
}

/** All Q&A pairs of a conversation, in order, and every question that was put to others. */
export function extractQaPairs(turns: readonly Turn[], options: QaOptions = defaultQaOptions): QaExtraction {
  const posed = turns.map((t) => posedQuestion(t, options));
  const pairs: ExtractedPair[] = [];
  const asked: PosedQuestion[] = [];
  posed.forEach((question, i) => {
    if (!question) return;
    const next = turns.slice(i + 1).find((t) => t.speaker !== turns[i]!.speaker);
    asked.push({ ...question, toBot: next?.isBot ?? false });
    const answer = findAnswer(turns, posed, i, question, options);
    if (!answer) return;
    const turn = turns[i]!;
    pairs.push({
      turn: i,
      question: question.text,
      answer: answer.text,
      askedBy: turn.speaker,
      answeredBy: answer.speaker,
      askedByBot: turn.isBot,
      answeredByBot: answer.isBot,
      utterance: question.utterance,
      answerWords: answer.words,
    });
  });
  return { pairs, asked };
}

interface FoundAnswer {
  text: string;
  speaker: string;
  isBot: boolean;
  words: number;
}

/**
 * The answer to the question of turn `qi`: the first turn of another speaker that says more than a
 * back-channel, plus that speaker's following turns up to their own next question (back-channels of others
 * in between are skipped). A bare "yes"/"no" counts only for a yes/no question and when nothing more follows.
 */
function findAnswer(
  turns: readonly Turn[],
  posed: readonly (PosedQuestion | null)[],
  qi: number,
  question: PosedQuestion,
  options: QaOptions,
): FoundAnswer | null {
  const asker = turns[qi]!.speaker;
  const yesNo = isYesNoQuestion(turns[qi]!.sentences[question.to]!.text);
  let answerer: Turn | null = null;
  let acknowledgement: Turn | null = null;
  const parts: string[] = [];
  let total = 0;
  for (let j = qi + 1; j < turns.length; j++) {
    const turn = turns[j]!;
    const text = turnText(turn);
    if (!answerer) {
      if (j - qi > answerSearchTurns) break;
      if (turn.speaker === asker) {
        if (isAcknowledgement(text) || (wordCount(text) <= maxClarificationWords && !posed[j])) continue;
        break;
      }
      if (isAcknowledgement(text)) {
        acknowledgement ??= turn;
        continue;
      }
      // A counter-question ("Has that not gone up?") answers nothing.
      if (turn.sentences.every((s) => questionKind(s.text) !== null)) break;
      answerer = turn;
      if (acknowledgement?.speaker === turn.speaker && yesNo) {
        parts.push(turnText(acknowledgement));
      }
    } else if (turn.speaker !== answerer.speaker) {
      if (isAcknowledgement(text)) continue;
      break;
    }
    const own = posed[j];
    const part = turnText(turn, 0, own ? own.from : turn.sentences.length);
    if (part) {
      parts.push(part);
      total += wordCount(part);
    }
    if (own || total >= options.maxAnswerWords) break;
  }
  const all = parts.join(' ');
  // "Alth", "Like a c": an answer broken off after a word or two is an interruption, not an answer.
  const interrupted = total < 3 && !/[.!?…]["'”’)\]]*$/.test(all);
  if (answerer && total > 0 && !interrupted) {
    return {
      text: truncateWords(all, options.maxAnswerWords),
      speaker: answerer.speaker,
      isBot: answerer.isBot,
      words: words(all).length,
    };
  }
  if (acknowledgement && yesNo) {
    const text = turnText(acknowledgement);
    return { text, speaker: acknowledgement.speaker, isBot: acknowledgement.isBot, words: wordCount(text) };
  }
  return null;
}

// Q&A pairing of the local engine: questions put to others, each with the answer of the next speaker; small talk is
// never an answer, a re-asked question is one question, and a follow-up's answer joins the answer it follows up on.
import { factKind } from '../conversation/fact-questions';
import { isSmallTalk, lineKind } from '../conversation/small-talk';
import { isYesNoQuestion, questionKind } from './questions';
import type { Turn, TurnSentence } from './text';
import {
  contentStems,
  endsSentence,
  isAcknowledgement,
  sharedCount,
  stem,
  truncateWords,
  turnText,
  wordCount,
  wordSet,
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
  /** Answered questions, in order (the status `qa_pairs`). */
  pairs: ExtractedPair[];
  /** Questions put to others, answered or not; a re-asked question and a follow-up are not counted again. */
  asked: PosedQuestion[];
  /**
   * Every question of `asked`, in order, with its answer: the pair from `pairs` when it was answered, else the
   * question with `answer` and `answeredBy` empty (`answerWords` 0). For per-question assessments.
   */
  exchanges: ExtractedPair[];
}

/** Words a turn may carry after its last question; beyond that the question was rhetorical or self-answered. */
const maxWordsAfterQuestion = 35;
/** An asker's own turn this short (and asking nothing new) is a clarification, not the end of the exchange. */
const maxClarificationWords = 25;
const answerSearchTurns = 6;
/** A question text needs this many content words (an echo such as "Is that so?" has none). */
const minQuestionContentWords = { human: 2, bot: 1 };
/** A question again within this many turns of the asker's previous one is that question re-asked or followed up. */
const followUpTurns = 6;
/** Checking the line, not asking about anything: "Are you still there?", "Can you hear me?". */
const presenceCheck =
  /\b(?:are you (?:still )?(?:there|with (?:me|us))|can (?:you|everyone|everybody) (?:hear|see) (?:me|us)|is my (?:audio|mic|microphone|sound) (?:ok|okay|working)|(?:are you|is everyone) ready(?: to (?:start|begin))?|shall we (?:start|begin)|did you hear (?:me|that))\b/i;
/** A follow-up asks for more on the answer just given, and names nothing new ("Could you give me an example?"). */
const followUpCue =
  /\b(?:example|instance|more detail|details?|a (?:bit|little) more|say more|tell me more|elaborate|expand|specific(?:ally|s)?|concrete(?:ly)?|go deeper|dig deeper|what happened (?:next|then|after that)|how did (?:that|it) (?:go|turn out|work out|end)|what was the (?:result|outcome|impact))\b/i;
const followUpWords = wordSet(`example instance concrete specific specifically detail elaborate expand bit
  little small deeper dig result outcome impact share further fine happened turn end give`);
export const isFollowUp = (question: string): boolean =>
  wordCount(question) <= 14 &&
  followUpCue.test(question) &&
  contentStems(question).every((w) => followUpWords.has(w));
/** Words of the asking, not of the subject: "walk me through X" and "explain X" ask about the same X. */
const askingWords = wordSet(`tell walk explain describe share give talk ask hear understand other word
  repeat again let finish sorry`);

/** Two wordings of one question: the words of their subject mostly agree. */
function sameQuestion(a: string, b: string): boolean {
  let x = subjectWords(a, true);
  let y = subjectWords(b, true);
  // "whether you have been on call" has no content word: compare all its words.
  if (x.size === 0 || y.size === 0) {
    x = subjectWords(a, false);
    y = subjectWords(b, false);
  }
  if (x.size === 0 || y.size === 0) return x.size === y.size;
  const shared = sharedCount(x, y);
  return shared / (x.size + y.size - shared) >= 0.6;
}

const templateWords = wordSet(`could can would will you me i in so sure now what about through please like
  to let my question that is a the`);

function subjectWords(question: string, contentOnly: boolean): Set<string> {
  const ws = contentOnly ? contentStems(question) : words(question).map(stem);
  return new Set(ws.filter((w) => !askingWords.has(w) && (contentOnly || !templateWords.has(w))));
}

/** Praise or acknowledgement before the next question: "That is helpful, thank you.", "Understood.". */
const praise =
  /^(?:(?:that|this|it)(?:'s|\s+is|\s+was|\s+sounds)\s+)?(?:(?:very|really|so|super)\s+)?(?:great|good|helpful|interesting|useful|impressive|wonderful|excellent|perfect|nice|fair|clear|fascinating|understood|noted|makes sense|got it|fair enough)\b(?:[,\s]+(?:thanks|thank you|enough|to know|to hear))*[.!]*$/i;
/** A goodbye ("Thank you very much for your time!", "That was my last question."): it answers nothing. */
const farewell =
  /^(?:(?:that\s+was\s+(?:my|the)\s+last\s+question|thank(?:s|\s+you)(?:\s+all)?(?:\s+(?:so|very)\s+much)?(?:\s+for\s+(?:your\s+time|the\s+time|joining|coming|talking(?:\s+(?:with|to)\s+(?:me|us))?))?(?:,\s*[A-Z][\w'-]*)?|all\s+the\s+best(?:,\s*[A-Z][\w'-]*)?|(?:good)?bye|see\s+you(?:\s+(?:soon|later))?|have\s+a\s+(?:great|good|nice|lovely)\s+(?:day|one|evening|weekend))[,.!\s]*)+$/i;
/** A sentence that only leads into a question: "Thank you.", "Let me start with my first question.". */
const isLeadIn = (sentence: string): boolean =>
  contentStems(sentence).length === 0 ||
  isAcknowledgement(sentence) ||
  praise.test(sentence.trim()) ||
  isSmallTalk(sentence);
/** How a question opens: a wh-word, an auxiliary, a request ("Which kitchens…", "Are you…", "Tell me about…"). */
const asksOpening =
  /^(?:(?:so|and|now|okay|ok|great|thanks|thank you)[,.!]?\s+)*(?:what|which|whose|why|how|when|where|who|is|are|was|were|do|does|did|would|could|can|should|will|have|has|had|tell|walk|take|talk|describe|explain|share|give)\b/i;

/** A bot line cut off by an answer ("Which kitchens have you worked in…", core/conversation/cut-off.ts) still asks. */
function botQuestionKind(sentence: string) {
  const cut = /\s*…$/.test(sentence) && asksOpening.test(sentence.trim());
  return questionKind(cut ? sentence.replace(/\s*…$/, '?') : sentence);
}

/** The question a turn leaves to the others, or null when it asks none (or only tags, echoes, rhetoric). */
export function posedQuestion(turn: Turn, options: QaOptions = defaultQaOptions): PosedQuestion | null {
  const kinds = turn.sentences.map((s) => (turn.isBot ? botQuestionKind(s.text) : questionKind(s.text)));
  const last = kinds.lastIndexOf('question');
  if (last === -1) return null;
  if (wordCount(turnText(turn, last + 1)) > maxWordsAfterQuestion) return null;

  let from = last;
  // Questions asked in a row belong together ("What does HireVue do? Is it one of these systems?").
  while (from > 0 && kinds[from - 1] === 'question' && wordCount(turnText(turn, from - 1, last + 1)) <= 60) {
    from--;
  }
  // A short question leans on the sentence before it ("Now you're a director at HireVue. Is that correct?"),
  // unless that sentence only leads in ("Thank you.", "Let me start with my first question.").
  if (
    from > 0 &&
    wordCount(turnText(turn, from, last + 1)) < 8 &&
    kinds[from - 1] === null &&
    !isLeadIn(turn.sentences[from - 1]!.text)
  ) {
    from--;
  }

  // A question the bot could not finish because the person answered over it reads as the question it was.
  let text = turnText(turn, from, last + 1).replace(/\s*…$/, (cut) => (turn.isBot ? '?' : cut));
  // Small talk is not a question put to anyone: "How are you?", "Could you repeat that?", "Are you still there?".
  if (presenceCheck.test(text) || isSmallTalk(text)) return null;
  const ws = text.split(/\s+/);
  if (ws.length > options.maxQuestionWords) text = `…${ws.slice(-options.maxQuestionWords).join(' ')}`;
  const minContent = turn.isBot ? minQuestionContentWords.bot : minQuestionContentWords.human;
  // Echoes are short ("Is that so?"); a longer question may use only common words ("Could you tell me about your last project?").
  // "When could you start?" asks for a fact in common words only: the bot's question all the same.
  const factual = turn.isBot && factKind(text) !== null;
  if (contentStems(text).length < minContent && wordCount(text) < 6 && !factual) return null;
  return { text, from, to: last, utterance: turn.sentences[last]!.utterance, toBot: false };
}

/**
 * All Q&A pairs of a conversation and every question put to others. A question re-asked within a few turns (the
 * same content words) stays one question; the answer to a follow-up is appended to the answer it follows up on.
 */
export function extractQaPairs(turns: readonly Turn[], options: QaOptions = defaultQaOptions): QaExtraction {
  const posed = turns.map((t) => posedQuestion(t, options));
  // Each question's pair (answer empty until found) and the turn it was last asked in.
  const exchanges: { pair: ExtractedPair; question: PosedQuestion; lastTurn: number }[] = [];
  posed.forEach((question, i) => {
    if (!question) return;
    const turn = turns[i]!;
    const next = turns.slice(i + 1).find((t) => t.speaker !== turn.speaker);
    const answer = findAnswer(turns, posed, i, question, options);
    const prev = exchanges.findLast((e) => e.pair.askedBy === turn.speaker);
    if (prev && i - prev.lastTurn <= followUpTurns) {
      const followUp = isFollowUp(question.text);
      if (followUp || sameQuestion(prev.pair.question, question.text)) {
        prev.lastTurn = i;
        if (answer) addAnswer(prev.pair, answer, options);
        return;
      }
    }
    exchanges.push({
      question: { ...question, toBot: next?.isBot ?? false },
      lastTurn: i,
      pair: {
        turn: i,
        question: question.text,
        answer: '',
        askedBy: turn.speaker,
        answeredBy: '',
        askedByBot: turn.isBot,
        answeredByBot: false,
        utterance: question.utterance,
        answerWords: 0,
      },
    });
    if (answer) addAnswer(exchanges.at(-1)!.pair, answer, options);
  });
  return {
    pairs: exchanges.filter((e) => e.pair.answer !== '').map((e) => e.pair),
    asked: exchanges.map((e) => e.question),
    exchanges: exchanges.map((e) => e.pair),
  };
}

function addAnswer(pair: ExtractedPair, answer: FoundAnswer, options: QaOptions): void {
  if (pair.answer === '') {
    pair.answeredBy = answer.speaker;
    pair.answeredByBot = answer.isBot;
  }
  if (pair.answer.includes(answer.text)) return;
  const all = pair.answer ? `${pair.answer} ${answer.text}` : answer.text;
  pair.answer = truncateWords(all, options.maxAnswerWords);
  pair.answerWords += answer.words;
}

function byUtterance(turn: Turn): TurnSentence[][] {
  const groups = new Map<number, TurnSentence[]>();
  for (const s of turn.sentences) groups.set(s.utterance, [...(groups.get(s.utterance) ?? []), s]);
  return [...groups.values()];
}

/** The sentences of a turn's utterances that are more than small talk or back-channels ("Hold on." "Hi!"). */
function substantive(turn: Turn): TurnSentence[] {
  return byUtterance(turn)
    .filter((ss) => {
      const text = ss.map((s) => s.text).join(' ');
      if (isAcknowledgement(text) || isSmallTalk(text)) return false;
      // Praise and goodbyes ("That is helpful, thank you. That was my last question.") acknowledge and close; they
      // answer nothing, whether said as one utterance or sentence by sentence.
      return !ss.every((s) => {
        const t = s.text.trim();
        return isAcknowledgement(t) || isSmallTalk(t) || praise.test(t) || farewell.test(t);
      });
    })
    .flat();
}

/** Words an aside ("Hmm, let me think.", "Hold on.") has at most: a longer line is never read as one. */
const maxAsideWords = 12;
export const isAside = (text: string) => wordCount(text) <= maxAsideWords && lineKind(text) === 'aside';

/** What a turn said besides its asides ("Hmm, let me think. Yes." says "Yes."). */
function withoutAsides(turn: Turn): string {
  let said = spoken.get(turn);
  if (said === undefined) {
    said = byUtterance(turn)
      .map((ss) => ss.map((s) => s.text).join(' '))
      .filter((text) => !isAside(text))
      .join(' ');
    spoken.set(turn, said);
  }
  return said;
}
/** withoutAsides of each turn, read once: an answer is looked for in the same turns for many questions. */
const spoken = new WeakMap<Turn, string>();

interface FoundAnswer {
  text: string;
  speaker: string;
  isBot: boolean;
  words: number;
}

/**
 * The answer to turn `qi`'s question: the next other speaker's turn that says more than a back-channel, and their
 * turns up to their own next question. A bare "yes"/"no" counts only for a yes/no question with nothing after it.
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
    const text = withoutAsides(turn);
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
      // "Hi, happy to be here", "Sorry, could you repeat that?", "Hold on": no answer yet.
      const said = substantive(turn);
      if (said.length === 0) continue;
      // A counter-question ("Has that not gone up?", "Um… what are the next steps?") answers nothing.
      if (said.every((s) => questionKind(s.text) !== null)) break;
      answerer = turn;
      if (acknowledgement?.speaker === turn.speaker && yesNo) {
        parts.push(withoutAsides(acknowledgement));
      }
    } else if (turn.speaker !== answerer.speaker) {
      if (isAcknowledgement(text)) continue;
      break;
    }
    const own = posed[j];
    let to = own ? own.from : turn.sentences.length;
    // "… Now, back to my question. <question>": the lead-in to the answerer's own question is not part of the answer.
    while (own && to > 0 && isLeadIn(turn.sentences[to - 1]!.text)) to--;
    // "Sure." said on its own before the answer (the bot waited for more) is not part of it; a "yes" to a
    // yes/no question is, and so is "Sure." opening the answer's own utterance.
    let from = 0;
    if (parts.length === 0) {
      for (;;) {
        const u = turn.sentences[from]?.utterance;
        let end = from;
        while (end < to && turn.sentences[end]!.utterance === u) end++;
        const said = turnText(turn, from, end);
        // "Hmm, let me think." before a late answer is never part of it.
        const skip = isAside(said) || (!yesNo && (isAcknowledgement(said) || isSmallTalk(said)));
        if (end >= to || !skip) break;
        from = end;
      }
    }
    const part = turnText(turn, from, to);
    if (part) {
      parts.push(part);
      total += wordCount(part);
    }
    if (own || total >= options.maxAnswerWords) break;
  }
  const all = parts.join(' ');
  // "Alth", "Like a c": an answer broken off after a word or two is an interruption, not an answer.
  const interrupted = total < 3 && !endsSentence(all);
  if (answerer && total > 0 && !interrupted) {
    return {
      text: truncateWords(all, options.maxAnswerWords),
      speaker: answerer.speaker,
      isBot: answerer.isBot,
      words: words(all).length,
    };
  }
  if (acknowledgement && yesNo) {
    const text = withoutAsides(acknowledgement);
    return { text, speaker: acknowledgement.speaker, isBot: acknowledgement.isBot, words: wordCount(text) };
  }
  return null;
}

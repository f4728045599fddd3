// Rule-based evaluation of the local engine: the rubric (rubric.ts) applied to what rules can measure. An interview
// is judged by its answers (answer-signals.ts), a working meeting by what it produced; strengths and weaknesses quote
// the transcript or state a fact of it. README.md "Evaluation" has the tables.

import type { Utterance } from '../../../bots/transcript';
import type { Answered, Quality, ScoreBasis } from '../../../insights/rubric';
import { evidenceWords, questionPoints } from '../../../insights/rubric';
import type { QuestionAssessment } from '../../../schemas/results';
import { factKind, givesFact } from '../conversation/fact-questions';
import {
  type AnswerSignals,
  answerSignals,
  type EvidenceKind,
  evidenceQuote,
  namedThings,
} from './answer-signals';
import { isAside, type PosedQuestion, posedQuestion, type QaExtraction } from './qa-pairs';
import { asRequested, isYesNoQuestion, questionKind } from './questions';
import { type RoleWords, roleWords } from './role-words';
import {
  endsAsking,
  fillerCount,
  isAcknowledgement,
  isBotUtterance,
  quote,
  splitSentences,
  type Turn,
  truncateWords,
  turnText,
  wordCount,
} from './text';

export type InterviewComponent = 'answers' | 'clarity';
export type MeetingComponent = 'outcomes' | 'responsiveness' | 'specificity' | 'participation' | 'clarity';
export type Component = InterviewComponent | MeetingComponent;

const baseWeights: Record<'interview' | 'meeting', Partial<Record<Component, number>>> = {
  interview: { answers: 0.9, clarity: 0.1 },
  meeting: { outcomes: 0.3, responsiveness: 0.2, specificity: 0.2, participation: 0.15, clarity: 0.15 },
};
/** Words in an analysis prompt that double a component's weight (README "Analysis prompt"). */
const promptCues: Readonly<Record<Component, RegExp>> = {
  answers:
    /\b(?:answer\w*|responsive\w*|respond\w*|specific\w*|examples?|concrete|evidence|data|numbers|metrics|facts|depth|detail\w*|thorough\w*|evasi\w*|dodg\w*|direct\w*|hedg\w*|vague\w*|substance)\b/i,
  clarity: /\b(?:clarity|clear\w*|concise\w*|fillers?|communicat\w*|articulat\w*|fluen\w*|rambl\w*)\b/i,
  outcomes: /\b(?:outcomes?|decisions?|decided|action items?|next steps?|results?|deliverables?|owners?)\b/i,
  responsiveness: /\b(?:answer\w*|responsive\w*|respond\w*|open questions?|resolved?)\b/i,
  specificity: /\b(?:specific\w*|examples?|concrete|evidence|data|numbers|metrics|facts)\b/i,
  participation:
    /\b(?:participat\w*|balance\w*|engag\w*|collaborat\w*|inclusiv\w*|everyone|teamwork|dominat\w*)\b/i,
};
const labels: Record<Component, string> = {
  answers: 'the answers',
  clarity: 'clarity (fillers)',
  outcomes: 'outcomes (decisions, next steps)',
  responsiveness: 'questions answered',
  specificity: 'specifics',
  participation: 'participation',
};
/** Thresholds of the strength and weakness sentences (README "Evaluation"). */
const thresholds = {
  fillersPer100: { strong: 1.5, weak: 4 },
  /** An answer rambles: this long with fillers at this rate, or much longer without any specific. */
  rambling: { words: 90, fillersPer100: 4, wordsWithoutSpecifics: 150 },
  /** Interview detection without a bot: the answerers take this share of the answers and of the words. */
  interview: { answerShare: 0.8, wordShare: 0.5, maxAskedShare: 0.2, minPairs: 3 },
  /** Meeting components: a strength from `strong`, a weakness under `weak`; full outcomes at 2 + 1 per 1,000 words. */
  meeting: { strong: 0.75, weak: 0.35, wordsPerOutcome: 1000 },
  /** Fewer words than this: too little to judge. */
  minWords: 50,
  maxStrengths: 5,
  maxWeaknesses: 6,
} as const;

export interface EvaluationInput {
  utterances: readonly Utterance[];
  turns: readonly Turn[];
  qa: QaExtraction;
  /** All action items ("Speaker: sentence", as extractActionItems gives them), not only the ones shown. */
  actionItems: readonly string[];
  botName?: string;
  analysisPrompt?: string;
}

export interface Evaluation {
  overall_score: number;
  score_basis: ScoreBasis;
  strengths: string[];
  weaknesses: string[];
  question_assessments: QuestionAssessment[];
  unanswered: string[];
  engine_notes: string[];
  /** The words of the role the strengths and weaknesses use ("named tool" in software, "name" for a nurse). */
  words: RoleWords;
}

/** Why a question got its rating; the weaknesses name it. */
type Reason = 'unanswered' | 'dodged' | 'hedged' | 'thin' | 'off-topic' | 'vague' | 'general' | 'rambling';

interface Assessed extends QuestionAssessment {
  points: number;
  signals: AnswerSignals | null;
  reasons: Reason[];
  /** The question asked for one fact (a name, yes/no, a number, a date, a place) and the answer gave it. */
  fact?: boolean;
  /** The whole answer (for the weaknesses' quotes). */
  answer?: string;
}

interface Conversation {
  input: EvaluationInput;
  role: RoleWords;
  words: number;
  humanWords: number;
  wordsBy: Map<string, number>;
  fillersBy: Map<string, number>;
  /** Questions put to others (not to the bot), with their asker. */
  posed: (PosedQuestion & { asker: string; askerIsBot: boolean })[];
  turnOf: Map<number, number>;
}

export function evaluate(input: EvaluationInput): Evaluation {
  const c = survey(input);
  if (c.words === 0) {
    return {
      overall_score: 0,
      score_basis: 'none',
      strengths: [],
      weaknesses: ['Nothing was said, so there is nothing to evaluate.'],
      question_assessments: [],
      unanswered: [],
      engine_notes: [],
      words: c.role,
    };
  }
  const agenda = interviewAgenda(c);
  const basis = agenda ? ('interview' as const) : ('meeting' as const);
  const assessed = (agenda ?? c.posed).map((q) => assess(c, q));
  const judged = agenda ? interview(c, assessed) : meeting(c, assessed);
  const weights = weightsFor(basis, input.analysisPrompt);
  let sum = 0;
  let total = 0;
  for (const [k, v] of Object.entries(judged.components) as [Component, number][]) {
    sum += weights[k]! * v;
    total += weights[k]!;
  }
  return {
    overall_score: total ? Math.round((100 * sum) / total) : 0,
    score_basis: basis,
    strengths: judged.strengths.slice(0, thresholds.maxStrengths),
    weaknesses: judged.weaknesses.slice(0, thresholds.maxWeaknesses),
    question_assessments: assessed.map(({ points: _p, signals: _s, reasons: _r, ...a }) => a),
    unanswered: assessed.filter((a) => a.answered === 'no').map((a) => a.question),
    engine_notes: followPrompt(input.analysisPrompt, Object.keys(weights) as Component[]).notes,
    words: c.role,
  };
}

function survey(input: EvaluationInput): Conversation {
  const { utterances, turns, qa, botName } = input;
  const wordsBy = new Map<string, number>();
  const fillersBy = new Map<string, number>();
  let words = 0;
  let humanWords = 0;
  for (const u of utterances) {
    // "Hmm, let me think." before an answer is a pause, not part of what was said: an answer given after it is
    // judged as one given at once.
    if (!isBotUtterance(u, botName) && isAside(u.text)) continue;
    const n = wordCount(u.text);
    words += n;
    if (isBotUtterance(u, botName)) continue;
    humanWords += n;
    wordsBy.set(u.speaker, (wordsBy.get(u.speaker) ?? 0) + n);
    fillersBy.set(u.speaker, (fillersBy.get(u.speaker) ?? 0) + fillerCount(u.text));
  }
  const turnOf = new Map(turns.flatMap((t, i) => t.sentences.map((s) => [s.utterance, i] as const)));
  const posed = qa.asked
    .filter((q) => !q.toBot)
    .map((q) => {
      const u = utterances[q.utterance];
      return { ...q, asker: u?.speaker ?? '', askerIsBot: u ? isBotUtterance(u, botName) : false };
    });
  // The words of the role, from what was asked and answered: a nurse's answers lack a "name", not a "named tool".
  const role = roleWords(turns.map((t) => turnText(t)));
  return { input, role, words, humanWords, wordsBy, fillersBy, posed, turnOf };
}

/**
 * The questions of an interview, or null for a working meeting. Bot-led: the bot's questions to the
 * participants. Otherwise one or two answerers give at least 80% of the answers, ask at most 20% of the
 * questions and speak at least half the words; the agenda is everyone else's questions (the hosts').
 */
function interviewAgenda(c: Conversation): Conversation['posed'] | null {
  const byBot = c.posed.filter((q) => q.askerIsBot);
  if (byBot.length > 0) return byBot;
  const t = thresholds.interview;
  const answers = c.input.qa.pairs.filter((p) => !p.answeredByBot && p.answer.trim() !== '');
  if (answers.length < t.minPairs) return null;
  const count = new Map<string, number>();
  for (const p of answers) count.set(p.answeredBy, (count.get(p.answeredBy) ?? 0) + 1);
  const top = [...count.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2);
  const guests = new Set<string>();
  let covered = 0;
  for (const [speaker, n] of top) {
    if (covered >= t.answerShare * answers.length) break;
    guests.add(speaker);
    covered += n;
  }
  const guestWords = [...guests].reduce((n, g) => n + (c.wordsBy.get(g) ?? 0), 0);
  const guestQuestions = c.posed.filter((q) => guests.has(q.asker)).length;
  if (
    covered < t.answerShare * answers.length ||
    guestWords < t.wordShare * c.humanWords ||
    guestQuestions > t.maxAskedShare * c.posed.length ||
    guests.size >= c.wordsBy.size
  ) {
    return null;
  }
  return c.posed.filter((q) => !guests.has(q.asker));
}

/** The first turn after the question's by someone else that says more than a back-channel. */
function replyTurn(c: Conversation, q: Conversation['posed'][number]): Turn | null {
  const qi = c.turnOf.get(q.utterance);
  if (qi === undefined) return null;
  const turns = c.input.turns;
  for (let j = qi + 1; j < Math.min(turns.length, qi + 7); j++) {
    const t = turns[j]!;
    if (t.speaker === q.asker) continue;
    if (!isAcknowledgement(turnText(t))) return t;
  }
  return null;
}

/** Questions that invite the other side's questions: a question in reply answers them. */
const invitesQuestions =
  /\b(?:any|other|more) questions? for (?:me|us)\b|\banything (?:you(?:'d| would) like|else) to ask\b|\bwhat (?:would|do) you (?:like|want) to (?:ask|know)\b/i;

function assess(c: Conversation, q: Conversation['posed'][number]): Assessed {
  const pair = c.input.qa.pairs.find(
    (p) => p.utterance === q.utterance && !p.answeredByBot && p.answer.trim() !== '',
  );
  const reply = replyTurn(c, q);
  const counter = reply ? posedQuestion(reply) : null;
  // A question the answerer turned back on the asker ("What does your team do?").
  const deflected = counter && /\byou(?:r|rs)?\b/i.test(counter.text) ? counter.text : null;
  const rated = (
    answered_by: string | null,
    answered: Answered,
    quality: Quality,
    evidence: string,
    more: Partial<Assessed> = {},
  ): Assessed => ({
    question: q.text,
    asked_by: q.asker,
    answered_by,
    answered,
    quality,
    evidence,
    points: questionPoints(answered, quality),
    signals: null,
    reasons: [],
    ...more,
  });
  // "Do you have any questions for me?" is answered by asking one.
  if (!pair && counter && invitesQuestions.test(q.text))
    return rated(reply!.speaker, 'yes', 3, truncateWords(counter.text, evidenceWords));
  if (!pair) {
    const evidence = deflected ? truncateWords(deflected, evidenceWords) : '';
    return rated(deflected ? reply!.speaker : null, 'no', 1, evidence, {
      reasons: [deflected ? 'dodged' : 'unanswered'],
    });
  }
  const s = answerSignals(pair.answer, q.text, pair.answerWords);
  const fact = factKind(q.text);
  if (fact && s.evasions.length === 0 && deflected === null && givesFact(fact, pair.answer)) {
    // "What is your name?" – "Sam Carter." is the whole answer: nothing more was asked for.
    const evidence = evidenceQuote(pair.answer, 'specific', evidenceWords);
    return rated(pair.answeredBy, 'yes', 3, evidence, { signals: s, fact: true, answer: pair.answer });
  }
  const asked = splitSentences(q.text).filter((x) => questionKind(x) === 'question');
  const bareYesNo = asked.length > 0 && asked.every(isYesNoQuestion) && s.words <= 3;
  const thin = !bareYesNo && s.words < Math.max(8, 0.6 * wordCount(q.text));
  const evasive = s.evasions.length > 0 || deflected !== null;
  // "Is that correct?" – "Yes." is a whole answer.
  const [answered, reason]: [Answered, Reason | null] =
    evasive && s.kinds === 0
      ? ['no', 'dodged']
      : evasive && s.kinds === 1
        ? ['partly', 'hedged']
        : bareYesNo
          ? ['yes', null]
          : thin && s.kinds === 0
            ? ['partly', 'thin']
            : !s.onTopic && s.kinds === 0
              ? ['partly', 'off-topic']
              : ['yes', null];
  const reasons: Reason[] = reason ? [reason] : [];

  let quality = bareYesNo ? 3 : ([2, 3, 4][s.kinds] ?? 5);
  if (!bareYesNo && s.vague.length >= 2 && s.kinds <= 1) {
    quality = Math.min(quality, 2);
    reasons.push('vague');
  } else if (!bareYesNo && s.kinds === 0 && answered === 'yes') reasons.push('general');
  if (thin) quality = Math.min(quality, 2);
  const r = thresholds.rambling;
  if (
    (s.words >= r.words && s.fillersPer100 >= r.fillersPer100) ||
    (s.words >= r.wordsWithoutSpecifics && s.kinds === 0)
  ) {
    quality -= 1;
    reasons.push('rambling');
  }
  if (answered === 'partly') quality = Math.min(quality, 3);
  if (answered === 'no') quality = 1;
  const q5 = Math.min(5, Math.max(1, quality)) as Quality;

  const kind: EvidenceKind =
    answered !== 'yes' && evasive
      ? 'evasive'
      : reasons.includes('vague')
        ? 'vague'
        : reasons.includes('rambling') && s.fillersPer100 >= r.fillersPer100
          ? 'filler'
          : 'specific';
  const evidence =
    answered === 'no' && !s.evasions.length && deflected
      ? truncateWords(deflected, evidenceWords)
      : evidenceQuote(pair.answer, kind, evidenceWords);
  return rated(pair.answeredBy, answered, q5, evidence, { signals: s, reasons, answer: pair.answer });
}

interface Judged {
  components: Partial<Record<Component, number>>;
  strengths: string[];
  weaknesses: string[];
}

const one = (x: number) => (Math.round(x * 10) / 10).toString();
const pct = (x: number) => `${Math.round(100 * x)}%`;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
/** A quote that ends a sentence: its own closing mark ends it ("…: "Testing."", not "…: "Testing."."). */
const quoteEnd = (text: string) => (/[.!?…]$/.test(text.trim()) ? quote(text.trim()) : `${quote(text)}.`);
/** A question as the sentences name it: its last sentence that asks ("Thanks. How do you test?"), 14 words at most. */
function shortQuestion(question: string): string {
  const asks = splitSentences(question.replace(/^…/, '').trim()).filter(endsAsking);
  const ws = (asks.at(-1) ?? question.replace(/^…/, '')).trim().split(/\s+/);
  const text = ws.length > 14 ? `…${ws.slice(-14).join(' ')}` : ws.join(' ');
  return quote(asRequested(text));
}
const clarityOf = (fillersPer100: number) => clamp01(1 - fillersPer100 / 6);

function fillersPer100(c: Conversation, speakers: Iterable<string>): { rate: number; words: number } {
  let words = 0;
  let fillers = 0;
  for (const s of speakers) {
    words += c.wordsBy.get(s) ?? 0;
    fillers += c.fillersBy.get(s) ?? 0;
  }
  return { rate: words ? (100 * fillers) / words : 0, words };
}

/** The sentence of `speakers`' speech with the most fillers per word (for a quote). */
function fillerExample(c: Conversation, speakers: ReadonlySet<string>): string {
  let best = '';
  let rate = 0;
  for (const u of c.input.utterances) {
    if (!speakers.has(u.speaker)) continue;
    for (const s of splitSentences(u.text)) {
      const n = wordCount(s);
      const r = n >= 6 ? fillerCount(s) / n : 0;
      if (r > rate) {
        best = s;
        rate = r;
      }
    }
  }
  return truncateWords(best, evidenceWords);
}

function interview(c: Conversation, assessed: Assessed[]): Judged {
  // The people interviewed: whoever gave at least a fifth of the answers (a co-host's odd answer aside).
  const answers = assessed.flatMap((a) => (a.answered_by ? [a.answered_by] : []));
  const answerers = new Set(
    answers.filter((s) => answers.filter((x) => x === s).length >= 0.2 * answers.length),
  );
  const fillers = fillersPer100(c, answerers);
  const components: Partial<Record<InterviewComponent, number>> = {
    answers: assessed.reduce((n, a) => n + a.points, 0) / assessed.length / 100,
  };
  if (fillers.words > 0) components.clarity = clarityOf(fillers.rate);

  const strengths: string[] = [];
  const weaknesses: string[] = [];
  const byPoints = [...assessed].sort((a, b) => b.points - a.points);
  for (const a of byPoints)
    if (a.answered === 'yes' && a.quality >= 4 && a.signals && !a.fact) strengths.push(strongAnswer(a));
  if (assessed.length >= 2 && assessed.every((a) => a.answered === 'yes' && a.quality >= 3)) {
    strengths.push(`Answered all ${assessed.length} questions directly and with substance; none was dodged.`);
  }
  const t = thresholds.fillersPer100;
  if (fillers.words >= thresholds.minWords && fillers.rate <= t.strong) {
    const example = byPoints.find((a) => a.evidence && fillerCount(a.evidence) === 0)?.evidence;
    const shown = example ? `: ${quoteEnd(example)}` : ` (${fillers.words} words).`;
    strengths.push(`Spoke clearly and to the point, with hardly any filler words${shown}`);
  }

  // The weakest answer comes first, so no limit on the list can drop it: a one-word or dodged answer is what a
  // hiring manager must see. A fact given in a word ("Sam Carter.") is not weak.
  const weakest = weakestAnswer(assessed);
  const said = new Set<Assessed>();
  const blame = (a: Assessed, sentence: string | null) => {
    if (sentence && !said.has(a)) {
      said.add(a);
      weaknesses.push(sentence);
    }
  };
  if (weakest) blame(weakest, weakness(weakest, c.role));
  for (const level of ['no', 'partly', 'yes'])
    for (const a of assessed) if (a.answered === level) blame(a, weakness(a, c.role));
  if (fillers.rate > t.weak) {
    weaknesses.push(
      `Used many filler words (about ${Math.round(fillers.rate)} in every 100), e.g. ${quoteEnd(fillerExample(c, answerers))}`,
    );
  }
  if (c.words < thresholds.minWords) weaknesses.unshift(tooShort(c.words));

  // Nothing is invented to fill a list: a perfect candidate may have no weakness, an evasive one no strength.
  // Short of that, the least detailed answer is named, and called strong when it was.
  if (weakest && !said.has(weakest) && weakest.signals) {
    weaknesses.push(
      weakest.quality >= 4
        ? `Every answer was strong; the least detailed, to ${shortQuestion(weakest.question)}, was still specific: ${quoteEnd(weakest.evidence)}`
        : weakest.signals.kinds > 0
          ? `The least detailed answer was to ${shortQuestion(weakest.question)}: ${quoteEnd(weakest.evidence)}`
          : `The least detailed answer was to ${shortQuestion(weakest.question)}: ${quote(weakest.evidence)} (${missing(weakest.signals, c.role)}).`,
    );
  }
  return { components, strengths, weaknesses };
}

/** The weakest answer: fewest points, then fewest words; a fact given in a word does not count. */
function weakestAnswer(assessed: readonly Assessed[]): Assessed | null {
  const byWeakness = assessed
    .filter((a) => !a.fact)
    .sort((a, b) => a.points - b.points || (a.signals?.words ?? 0) - (b.signals?.words ?? 0));
  return byWeakness[0] ?? null;
}

const list = (items: readonly string[]) => new Intl.ListFormat('en', { type: 'conjunction' }).format(items);

/** "Answered "…" concretely, naming Kafka and Postgres, with figures and a measurable result: "…"." */
function strongAnswer(a: Assessed): string {
  const s = a.signals!;
  const what: string[] = [];
  const named = namedThings(a.answer ?? a.evidence).slice(0, 3);
  if (named.length) what.push(`naming ${list(named)}`);
  const with_: string[] = [];
  if (s.figures) with_.push('figures');
  if (s.outcome) with_.push('a measurable result');
  if (s.example) with_.push('a worked example');
  if (with_.length) what.push(`with ${list(with_)}`);
  if (s.ownActions) what.push('saying what they did themselves');
  return `Answered ${shortQuestion(a.question)} concretely${what.length ? `, ${what.join(', ')}` : ''}: ${quoteEnd(a.evidence)}`;
}

/** What an answer lacked, in the words of the role: "no figure, named tool or outcome", "no figure, name or result". */
function missing(s: AnswerSignals, role: RoleWords): string {
  const lacks: string[] = [];
  if (!s.figures) lacks.push('figure');
  if (!s.names.length) lacks.push(role.named);
  if (!s.outcome) lacks.push(role.result);
  return lacks.length
    ? `no ${new Intl.ListFormat('en', { type: 'disjunction' }).format(lacks)}`
    : 'few details';
}

/** The sentence a reviewer would write about a poor answer, or null when the answer was not poor. */
function weakness(a: Assessed, role: RoleWords): string | null {
  const q = shortQuestion(a.question);
  const s = a.signals;
  if (a.answered === 'no') {
    return a.reasons.includes('dodged') && a.evidence
      ? `Dodged ${q}: ${quoteEnd(a.evidence)}`
      : `Did not answer ${q}.`;
  }
  if (a.answered === 'partly') {
    if (a.reasons.includes('hedged'))
      return `Hedged on ${q} without committing to specifics: ${quoteEnd(a.evidence)}`;
    if (a.reasons.includes('thin')) {
      const n = s?.words ?? 0;
      const size = n <= 3 ? `a ${['', 'one', 'two', 'three'][n]}-word answer` : `only ${n} words`;
      // The words counted are the words quoted: "People. Helping people." is three words, not "People.".
      return `Gave ${size} to ${q}: ${quote(truncateWords(a.answer ?? a.evidence, evidenceWords))}, with nothing to back it up.`;
    }
    return `Did not really address ${q}: ${quoteEnd(a.evidence)}`;
  }
  if (!s || a.fact) return null;
  if (a.reasons.includes('rambling')) {
    return `Rambled on ${q} (${s.words} words${s.fillersPer100 >= thresholds.rambling.fillersPer100 ? ', many of them fillers' : ''}) without a clear point: ${quoteEnd(a.evidence)}`;
  }
  if (a.reasons.includes('vague')) {
    return `Stayed vague on ${q}: ${quote(a.evidence)} – words like ${list(s.vague.slice(0, 3).map(quote))}, but no figure, name or ${role.result}.`;
  }
  if (a.reasons.includes('general')) {
    return `Answered ${q} only in general terms, with ${missing(s, role)}: ${quoteEnd(a.evidence)}`;
  }
  return null;
}

const tooShort = (words: number) =>
  `The conversation is very short (${words} words), so this evaluation is tentative.`;
/** Decisions stated in the meeting ("we decided", "agreed", "let's go with"). */
const decision =
  /\b(?:(?<!\b(?:the|a|an|that|what)\s+\w+\s+)we(?:'ve| have)? (?:decided|agreed)|(?:it's|that's|it is) (?:decided|agreed)|agreed (?:on|to|that)|let's go with|we'll go with|we(?:'re| are) going (?:with|for)|the decision is|we settled on)\b/i;

interface Quoted {
  speaker: string;
  text: string;
}

/** `speaker: "text"` for a sentence quoted in a meeting's strengths or weaknesses. */
const said = (q: Quoted) => `${q.speaker}: ${quote(truncateWords(q.text, evidenceWords))}`;

function meeting(c: Conversation, assessed: Assessed[]): Judged {
  const { input } = c;
  const humans = [...c.wordsBy.entries()].filter(([, n]) => n > 0);
  const sentences: Quoted[] = input.turns
    .filter((t) => !t.isBot)
    .flatMap((t) => t.sentences.map((s) => ({ speaker: t.speaker, text: s.text })));
  const decisions = sentences.filter((s) => decision.test(s.text) && !endsAsking(s.text));
  const actionItems = input.actionItems.map((item) => {
    const at = item.indexOf(': ');
    return { speaker: item.slice(0, at), text: item.slice(at + 2) };
  });
  const outcomes = [...decisions, ...actionItems];
  const answered = assessed.filter((a) => a.answered !== 'no');
  const long = input.turns.filter((t) => !t.isBot && wordCount(turnText(t)) >= 10);
  const specific = long.filter((t) => {
    const s = answerSignals(turnText(t), '');
    return s.figures > 0 || s.names.length >= 2 || s.outcome;
  });
  const fillers = fillersPer100(c, c.wordsBy.keys());

  const components: Partial<Record<MeetingComponent, number>> = {
    outcomes: clamp01(outcomes.length / (2 + c.words / thresholds.meeting.wordsPerOutcome)),
  };
  if (assessed.length) components.responsiveness = answered.length / assessed.length;
  if (long.length) components.specificity = clamp01(specific.length / long.length / 0.5);
  if (humans.length >= 2 && c.humanWords > 0) {
    const shares = humans.map(([, n]) => n / c.humanWords);
    components.participation = -shares.reduce((h, p) => h + p * Math.log(p), 0) / Math.log(shares.length);
  }
  if (fillers.words > 0) components.clarity = clarityOf(fillers.rate);

  const bestSpecific = specific
    .map((t) => ({ speaker: t.speaker, text: evidenceQuote(turnText(t), 'specific', evidenceWords) }))
    .sort((a, b) => answerSignals(b.text, '').kinds - answerSignals(a.text, '').kinds)[0];
  const bestPair = [...answered].sort((a, b) => b.points - a.points)[0];
  const open = assessed.filter((a) => a.answered === 'no');
  const byShare = humans.sort((a, b) => b[1] - a[1]);
  const share = (n: number) => pct(n / c.humanWords);
  const loudFiller = [...c.fillersBy.entries()]
    .map(([s, f]) => ({ speaker: s, rate: (100 * f) / Math.max(1, c.wordsBy.get(s) ?? 0) }))
    .sort((a, b) => b.rate - a.rate)[0];

  /** For each component: the sentence when it is a strength, and when it is a weakness. */
  const facts: Record<MeetingComponent, { good: () => string; bad: () => string }> = {
    outcomes: {
      good: () =>
        `${outcomes.length} decisions or next steps were stated, e.g. ${said(decisions[0] ?? actionItems[0]!)}.`,
      bad: () =>
        outcomes.length
          ? `Few outcomes: ${outcomes.length} decisions or next steps in ${c.words} words, e.g. ${said(outcomes[0]!)}.`
          : `No decision or next step was stated in ${c.words} words.`,
    },
    responsiveness: {
      good: () =>
        `Questions raised got answers (${answered.length} of ${assessed.length}), e.g. ${bestPair!.asked_by} asked ${shortQuestion(bestPair!.question)} and ${bestPair!.answered_by} answered ${quote(bestPair!.evidence)}.`,
      bad: () =>
        `Questions were left open (${open.length} of ${assessed.length} without an answer), e.g. ${open[0]!.asked_by}: ${shortQuestion(open[0]!.question)}.`,
    },
    specificity: {
      good: () =>
        `Concrete specifics in ${pct(specific.length / long.length)} of the longer turns, e.g. ${said(bestSpecific!)}.`,
      bad: () =>
        `Little concrete detail: ${specific.length} of ${long.length} longer turns cite a figure, names or an outcome${bestSpecific ? `; the most specific: ${said(bestSpecific)}` : ''}.`,
    },
    participation: {
      good: () =>
        `${humans.length === 2 ? 'Both' : `All ${humans.length}`} speakers contributed, from ${byShare.at(-1)![0]} (${share(byShare.at(-1)![1])}) to ${byShare[0]![0]} (${share(byShare[0]![1])}) of the words.`,
      bad: () =>
        `${byShare[0]![0]} spoke ${share(byShare[0]![1])} of the words; ${byShare.at(-1)![0]} only ${share(byShare.at(-1)![1])}.`,
    },
    clarity: {
      good: () => `Clear speech: ${one(fillers.rate)} fillers per 100 words.`,
      bad: () =>
        `Frequent fillers: ${one(fillers.rate)} per 100 words, most from ${loudFiller!.speaker} (${one(loudFiller!.rate)}), e.g. ${quote(fillerExample(c, new Set([loudFiller!.speaker])))}.`,
    },
  };

  const strengths: string[] = [];
  const weaknesses: string[] = [];
  const t = thresholds.meeting;
  const ranked = (Object.entries(components) as [MeetingComponent, number][]).sort((a, b) => b[1] - a[1]);
  const canPraise = (k: MeetingComponent) =>
    (k !== 'outcomes' || outcomes.length > 0) &&
    (k !== 'responsiveness' || bestPair !== undefined) &&
    (k !== 'specificity' || bestSpecific !== undefined);
  const canBlame = (k: MeetingComponent) => k !== 'responsiveness' || open.length > 0;
  for (const [k, v] of ranked) {
    if (v >= t.strong && canPraise(k)) strengths.push(facts[k].good());
    else if (v < t.weak && canBlame(k)) weaknesses.push(facts[k].bad());
  }
  if (c.words < thresholds.minWords) weaknesses.unshift(tooShort(c.words));
  if (humans.length === 1)
    weaknesses.unshift(`Only ${humans[0]![0]} spoke; there was no exchange to evaluate.`);
  if (c.posed.length === 0 && humans.length > 1 && c.words >= thresholds.minWords) {
    weaknesses.push(`No questions were asked in ${c.words} words, so there was little back-and-forth.`);
  }
  // Short of a component past a threshold, the best one (unless weak) and the worst (unless strong) are named.
  const best = ranked.find(([k, v]) => v >= t.weak && canPraise(k));
  if (strengths.length === 0 && best) strengths.push(facts[best[0]].good());
  const worst = [...ranked].reverse().find(([k, v]) => v < t.strong && canBlame(k));
  if (weaknesses.length === 0 && worst) weaknesses.push(facts[worst[0]].bad());
  return { components, strengths, weaknesses };
}

/**
 * What the local engine can follow of an analysis prompt: each sentence that names a theme of a component
 * doubles that component's weight; the rest is reported in `engine_notes` as not followed.
 */
function followPrompt(prompt: string | undefined, components: readonly Component[]) {
  const doubled = new Set<Component>();
  const ignored: string[] = [];
  for (const sentence of splitSentences((prompt ?? '').replace(/[;\n]+/g, '. '))) {
    const hit = components.filter((k) => promptCues[k].test(sentence));
    if (hit.length) for (const k of hit) doubled.add(k);
    else ignored.push(sentence);
  }
  const notes: string[] = [];
  if (doubled.size) {
    notes.push(
      `Analysis prompt: the local engine weighted ${[...doubled].map((k) => labels[k]).join(', ')} double, as the prompt asks.`,
    );
  }
  for (const s of ignored.slice(0, 5)) {
    notes.push(
      `Analysis prompt not followed by the local engine (it scores fixed, measurable features): ${quote(truncateWords(s, 30))}.`,
    );
  }
  if (ignored.length > 5) notes.push(`… and ${ignored.length - 5} more sentences of the analysis prompt.`);
  return { doubled: [...doubled], notes };
}

export function weightsFor(basis: 'interview' | 'meeting', analysisPrompt?: string): Record<string, number> {
  const weights: Record<string, number> = { ...baseWeights[basis] };
  for (const k of followPrompt(analysisPrompt, Object.keys(weights) as Component[]).doubled) weights[k]! *= 2;
  return weights;
}

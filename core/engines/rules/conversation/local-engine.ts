// The embedded conversation engine (no model): greets, asks the prompt's agenda one topic at a time, follows up once
// on a thin answer to an open question (fact-questions.ts), answers "what are the next steps?" and closes; with no
// agenda it listens. It keeps no memory: every turn it reads where the interview stands from the transcript.
import type { Utterance } from '../../../bots/transcript';
import { wasCutOff } from '../../../conversation/cut-off';
import type { ConversationContext, ConversationEngine } from '../../../ports/conversation-engine';
import { contentStems, endsAsking, isAcknowledgement, splitSentences, words } from '../insights/text';
import { type Agenda, agendaOf, normalised } from './agenda';
import { factKind } from './fact-questions';
import { callName, greetingPlan } from './greeting';
import { isDodge, type LineKind, lineKind } from './small-talk';

const acknowledgements = [
  'Thank you.',
  'Got it, thanks.',
  'That is helpful, thank you.',
  'Great, thanks.',
  'Understood.',
];
const followUps = [
  'Could you give me a concrete example?',
  'Could you say a bit more about that?',
  'Could you go into a little more detail?',
];
const dodgeFollowUp = "That's fine. Could you give me an example, even a small one?";
/** Said once the agenda is done; its presence in the transcript means the interview is closed. */
const lastQuestion = 'That was my last question.';
const neutralNextSteps = 'The team will follow up with you about next steps.';
const firstQuestion = 'Let me start with my first question.';
/** A replacement's first words: the people heard the bot go quiet mid-conversation. */
const apology = 'Sorry, I lost my connection for a moment.';
/** Fewer words than this (back-channels not counted) is a thin answer that gets one follow-up. */
const minAnswerWords = 5;
/** A question put this many times (rephrased, finished after a cut-off) without an answer is left for the next. */
const maxAsks = 4;
const moveOn = "Let's move on.";
/** A back-channel that declines ("No, sorry.", "Not really."): after a follow-up, the answer is no. */
const declines = /^(?:no|nope|nah|not really|sorry|i'm sorry|no sorry)\b[\s,.!]*(?:sorry|not really)?[.!]*$/i;

/** Where an interview stands, read from the transcript alone (so a replaced bot-task resumes it). */
export interface InterviewState {
  /** Shared between calls: read it, do not change it. */
  readonly agenda: Agenda;
  /** The topic the bot asked about last (index into agenda.topics); -1 before the first question. */
  current: number;
  /** none: nothing asked yet; asked: waiting for an answer; answered: the bot acknowledged it and moves on. */
  phase: 'none' | 'asked' | 'answered';
  followUps: number;
  /** The last follow-up's words (a request to repeat gets the same words). */
  lastFollowUp: string;
  /** Times the current topic's question was put (first asked, rephrased, asked again after a cut-off). */
  asks: number;
  /** Per topic, the first answer to it (the name a name question got is used at the close). */
  answers: (string | null)[];
  lastAsked: 'question' | 'follow-up' | null;
  closed: boolean;
  /** Per topic: a participant answered it (not only small talk). */
  covered: boolean[];
  /** The participants' lines since the bot last spoke, oldest first. */
  pending: Utterance[];
  cutOff: boolean;
  /** The bot has spoken before (a replaced bot-task greets by resuming). */
  botSpoke: boolean;
  /** The bot's last turn, normalised (a repeated question alternates its wordings). */
  lastBotTurn: string;
}

type BotEvent =
  | { kind: 'ask'; topic: number }
  | { kind: 'follow-up'; text: string }
  | { kind: 'ack' | 'close' };

/** Replays the transcript: the bot's own lines say what it asked, the lines after them what was answered. */
export function interviewState(prompt: string | undefined, transcript: readonly Utterance[]): InterviewState {
  const agenda = agendaFor(prompt);
  const s: InterviewState = {
    agenda,
    current: -1,
    phase: 'none',
    followUps: 0,
    lastFollowUp: '',
    asks: 0,
    answers: agenda.topics.map(() => null),
    lastAsked: null,
    closed: false,
    covered: agenda.topics.map(() => false),
    pending: [],
    cutOff: false,
    botSpoke: false,
    lastBotTurn: '',
  };
  const phrases = agendaPhrases(agenda);
  for (let i = 0; i < transcript.length; ) {
    if (!transcript[i]!.is_bot) {
      const u = transcript[i]!;
      s.pending.push(u);
      const question = agenda.topics[s.current]?.question;
      if (s.phase === 'asked' && question && lineKind(u.text, { question }) === 'answer') {
        s.covered[s.current] = true;
        s.answers[s.current] ??= u.text;
      }
      i++;
      continue;
    }
    let j = i;
    while (j < transcript.length && transcript[j]!.is_bot) j++;
    const turn = transcript.slice(i, j);
    let followedUp = false;
    const askedNow = new Set<number>();
    for (const e of botEvents(agenda, phrases, turn, s.current)) {
      if (e.kind === 'ask') {
        if (e.topic !== s.current) {
          s.followUps = 0;
          s.asks = 0;
        }
        // "In other words, could you tell me …?" holds both wordings: one turn puts the question once.
        if (!askedNow.has(e.topic)) s.asks++;
        askedNow.add(e.topic);
        s.current = e.topic;
        s.phase = 'asked';
        s.lastAsked = 'question';
      } else if (e.kind === 'follow-up') {
        // "That's fine. Could you give me an example…?" is one follow-up; its question is what a repeat says again.
        if (!followedUp) s.followUps++;
        followedUp = true;
        s.lastFollowUp = e.text;
        s.phase = 'asked';
        s.lastAsked = 'follow-up';
      } else if (e.kind === 'ack') {
        if (s.phase === 'asked') s.phase = 'answered';
      } else s.closed = true;
    }
    s.pending = [];
    s.cutOff = wasCutOff(turn.at(-1)!.text);
    s.botSpoke = true;
    s.lastBotTurn = normalised(turn.map((u) => u.text).join(' '));
    i = j;
  }
  return s;
}

/** Parsed prompts of the bots this process runs (one, in a bot-task): the prompt is parsed once, not every turn. */
const agendas = new Map<string, Agenda>();

function agendaFor(prompt: string | undefined): Agenda {
  const key = prompt ?? '';
  let agenda = agendas.get(key);
  if (!agenda) {
    agenda = agendaOf(key);
    if (agendas.size >= 16) agendas.delete(agendas.keys().next().value!);
    agendas.set(key, agenda);
  }
  return agenda;
}

/** The engine's own lines, normalised; per topic, its question and rephrasing. */
const agendaPhrases = (agenda: Agenda) => ({
  acks: new Set(acknowledgements.map(normalised)),
  followUps: new Set([...followUps, dodgeFollowUp].flatMap(splitSentences).map(normalised)),
  close: normalised(lastQuestion),
  topics: agenda.topics.map((t) => [normalised(t.question), normalised(t.rephrased)]),
});
type Phrases = ReturnType<typeof agendaPhrases>;

/** What a bot turn did, in order. */
function botEvents(agenda: Agenda, p: Phrases, turn: readonly Utterance[], current: number): BotEvent[] {
  const text = turn.map((u) => u.text).join(' ');
  const events: { at: number; e: BotEvent }[] = [];
  let offset = 0;
  const whole = normalised(text);
  for (const sentence of splitSentences(text)) {
    const n = normalised(sentence);
    const at = whole.indexOf(n, offset);
    const pos = at === -1 ? offset : at;
    offset = pos + n.length;
    if (p.acks.has(n)) events.push({ at: pos, e: { kind: 'ack' } });
    else if (p.followUps.has(n)) events.push({ at: pos, e: { kind: 'follow-up', text: sentence } });
    else if (n.includes(p.close)) events.push({ at: pos, e: { kind: 'close' } });
  }
  const asked = new Set<number>();
  p.topics.forEach((forms, k) => {
    for (const form of forms) {
      if (!form) continue;
      for (let at = whole.indexOf(form); at !== -1; at = whole.indexOf(form, at + 1)) {
        events.push({ at, e: { kind: 'ask', topic: k } });
        asked.add(k);
      }
    }
  });
  // Lines the engine did not word itself (a transcription of the bot's voice, another engine): a question
  // naming every content word of a topic asks it.
  if (asked.size === 0) {
    for (const sentence of splitSentences(text)) {
      if (!endsAsking(sentence)) continue;
      const k = topicNamedIn(agenda, sentence, current);
      if (k !== -1) events.push({ at: whole.indexOf(normalised(sentence)), e: { kind: 'ask', topic: k } });
    }
  }
  return events.sort((a, b) => a.at - b.at).map((x) => x.e);
}

function topicNamedIn(agenda: Agenda, sentence: string, current: number): number {
  const said = new Set(contentStems(sentence));
  let best = -1;
  let bestSize = 0;
  agenda.topics.forEach((t, k) => {
    const stems = new Set(contentStems(t.topic));
    if (stems.size === 0 || ![...stems].every((w) => said.has(w))) return;
    // Prefer the topic naming the most words, then the one after the current.
    if (stems.size > bestSize || (stems.size === bestSize && k === current + 1)) {
      best = k;
      bestSize = stems.size;
    }
  });
  return best;
}

async function* said(...lines: string[]): AsyncIterable<string> {
  yield* lines;
}

export class LocalConversationEngine implements ConversationEngine {
  greet(ctx: ConversationContext): AsyncIterable<string> {
    const s = interviewState(ctx.prompt, ctx.transcript);
    const topics = s.agenda.topics;
    // A replaced bot-task apologises for the gap and picks up where the transcript stands. Only a real replacement
    // (the controller knows it): the recording notice before a first greeting is a bot line too.
    if (ctx.rejoining && s.botSpoke) {
      if (topics.length === 0 || s.closed) return said();
      return said(`${apology} ${nextLine(s, ctx.participants) ?? resume(s, 'rephrase')}`);
    }
    const plan = greetingPlan({
      botName: ctx.botName,
      greeting: ctx.greeting,
      people: ctx.participants,
      questions: topics.length,
    });
    if (topics.length === 0) return said(`${plan.text} I'll be listening and taking notes.`);
    const count = topics.length === 1 ? 'one question' : `${topics.length} questions`;
    const format = plan.announceFormat
      ? `, and I'll ask ${topics.length === 1 ? 'it' : 'them one at a time'}`
      : '';
    return said(`${plan.text} I have ${count} for you${format}. ${topics[0]!.question}`);
  }

  reply(ctx: ConversationContext): AsyncIterable<string> {
    const line = nextLine(interviewState(ctx.prompt, ctx.transcript), ctx.participants);
    return line ? said(line) : said();
  }
}

/** What the bot says after the participants' latest words, or null to keep listening. */
function nextLine(s: InterviewState, people?: readonly string[]): string | null {
  const topics = s.agenda.topics;
  if (topics.length === 0 || s.pending.length === 0) return null;
  const question = s.lastAsked === 'question' ? topics[s.current]?.question : undefined;
  // "Sure." … "Hold on." … then the answer: what counts is what came after the back-channels and asides.
  const lines = s.pending.map((u) => u.text.trim());
  let first = 0;
  while (first < lines.length - 1 && isFiller(lineKind(lines[first]!, { question }))) first++;
  const text = lines.slice(first).join(' ');
  const kind = lineKind(text, { question });
  if (kind === 'fragment' || kind === 'aside') return null;
  if (s.closed) {
    if (kind === 'next-steps') return nextSteps(s);
    if (kind === 'repeat-request') return `Sure. ${closingWords(s, people)}`;
    return null;
  }
  const asked = s.phase === 'asked';
  // The bot asked a follow-up and this is the turn after it: whatever it is, the interview goes on from here
  // (a request to repeat gets the follow-up once more first).
  const afterFollowUp = asked && s.lastAsked === 'follow-up';
  // The question was put maxAsks times and still no answer: the next one.
  const askedOut = asked && s.lastAsked === 'question' && s.asks >= maxAsks;
  // Moving on without an answer says so; after a follow-up the first answer stands.
  const onward = (lead: string) =>
    `${lead}${lead ? ' ' : ''}${askedOut || kind === 'repeat-request' ? `${moveOn} ` : ''}${advance(s, false, people)}`;
  const andThen = (lead: string, how: 'again' | 'back') =>
    afterFollowUp || askedOut ? onward(lead) : `${lead} ${resume(s, how, people)}`;
  switch (kind) {
    case 'back-channel':
      // "No, sorry." to a follow-up is its answer: nothing more to add.
      if (afterFollowUp && declines.test(text)) return `No problem. ${advance(s, false, people)}`;
      // "Sure", "mm-hmm" while a question waits, or said over it: they are about to answer. A question that was cut
      // off ("Sorry to cut in!", or audio that stopped the bot) is put again, as it was.
      if (asked) return s.cutOff && !askedOut ? resume(s, 'same') : null;
      return resume(s, 'again', people);
    case 'repeat-request':
      if (afterFollowUp) return s.followUps < 2 ? `Sure. ${s.lastFollowUp}` : onward('');
      if (askedOut) return onward('');
      return `Sure. ${resume(s, 'rephrase', people)}`;
    case 'next-steps':
      return andThen(nextSteps(s), 'back');
    case 'greeting':
      return andThen(
        /\bhow(?:'s| are| is)\b/i.test(text) ? "I'm doing well, thank you." : 'Nice to meet you.',
        'again',
      );
    case 'question':
      return andThen("Good question, I'll note it for the team.", 'back');
  }
  // An answer, also one said over the question (people answer early, having guessed or read the rest of it).
  if (!asked) return resume(s, 'again', people);
  if (afterFollowUp || s.followUps > 0) return advance(s, true, people);
  const fact = question ? factKind(question) : null;
  if (fact) {
    // A name, a yes or no, a number, a date, a place: a short answer is the whole answer; not giving it is theirs to decide.
    return isDodge(text) ? `No problem. ${advance(s, false, people)}` : advance(s, true, people);
  }
  if (isDodge(text)) return dodgeFollowUp;
  if (isThin(text)) return followUps[s.current % followUps.length]!;
  return advance(s, true, people);
}

const isFiller = (kind: LineKind): boolean => kind === 'back-channel' || kind === 'aside';

/** Too little to count as an answer: under five words besides back-channels, or no word with content. */
function isThin(text: string): boolean {
  const said = words(text).filter((w) => !isAcknowledgement(w));
  return said.length < minAnswerWords || contentStems(text).length === 0;
}

/** Back to the interview after something that was not an answer: the pending, next or first question. */
function resume(
  s: InterviewState,
  how: 'rephrase' | 'again' | 'back' | 'same',
  people?: readonly string[],
): string {
  const topics = s.agenda.topics;
  if (s.phase === 'none' || s.current < 0) return `${firstQuestion} ${topics[0]!.question}`;
  if (s.phase === 'answered') return advance(s, false, people);
  const lead = how === 'back' ? 'Now, back to my question. ' : '';
  if (s.lastAsked === 'follow-up')
    return `${lead}${s.lastFollowUp || followUps[s.current % followUps.length]}`;
  const topic = topics[s.current]!;
  if (how === 'same') return `${lead}${topic.question}`;
  // Asked for it again right after the rephrasing: the first wording may be the clearer one.
  const rephrasedLast = s.lastBotTurn.includes(normalised(topic.rephrased));
  let wording = rephrasedLast ? topic.question : topic.rephrased;
  // "In other words, …" answers "could you repeat that?"; after "Hi" the question itself reads better.
  if (how !== 'rephrase' && /^in other words\b/i.test(wording)) wording = topic.question;
  return `${lead}${wording}`;
}

/** The next topic's question, or the closing after the last one. */
function advance(s: InterviewState, acknowledge: boolean, people?: readonly string[]): string {
  const topics = s.agenda.topics;
  const ack = acknowledge ? `${acknowledgements[Math.max(0, s.current) % acknowledgements.length]} ` : '';
  const next = s.current + 1;
  if (next < topics.length) return `${ack}${topics[next]!.question}`;
  return `${ack}${closingWords(s, people)}`;
}

/** The closing, with the one person's name (the room's display name, else the name they gave when asked). */
function closingWords(s: InterviewState, people?: readonly string[]): string {
  const closing = s.agenda.closing;
  const many = (people?.length ?? 0) > 1;
  const name = many ? null : (callName(people?.[0]) ?? nameGiven(s));
  const thanks = many
    ? 'Thank you all for your time!'
    : `Thank you very much for your time${name ? `, ${name}` : ''}!`;
  if (closing && /\bthank/i.test(closing))
    return `${lastQuestion} ${closing}${name ? ` All the best, ${name}!` : ''}`;
  return `${lastQuestion} ${closing ? `${closing} ` : ''}${thanks}`;
}

/** The name given in answer to a name question ("My name is Sam Carter." → "Sam"). */
function nameGiven(s: InterviewState): string | null {
  const k = s.agenda.topics.findIndex((t) => factKind(t.question) === 'name');
  const answer = k === -1 ? null : s.answers[k];
  if (!answer) return null;
  const said =
    /\b(?:my name is|my name's|i'm|i am|it's|call me|this is)\s+([\p{L}'’-]+(?:\s+[\p{Lu}][\p{L}'’-]+)*)/iu.exec(
      answer,
    );
  return callName(said?.[1] ?? answer.replace(/[.!]+$/, ''));
}

const nextSteps = (s: InterviewState): string => s.agenda.closing ?? neutralNextSteps;

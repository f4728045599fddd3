// The embedded conversation engine (no model): greets, asks the prompt's agenda one topic at a time, follows up
// once on a thin answer, answers "what are the next steps?", and closes politely; with no agenda it listens.
// It keeps no memory: every turn it reads where the interview stands from the transcript (interviewState).
import type { Utterance } from '../bots/transcript';
import { contentStems, isAcknowledgement, splitSentences, words } from '../insights/text';
import type { ConversationContext, ConversationEngine } from '../ports/conversation-engine';
import { type Agenda, agendaOf, normalised } from './agenda';
import { wasCutOff } from './cut-off';
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
/** Fewer words than this (back-channels not counted) is a thin answer that gets one follow-up. */
const minAnswerWords = 5;

/** Where an interview stands, read from the transcript alone (so a replaced bot-task resumes it). */
export interface InterviewState {
  /** The prompt's agenda (shared between calls: read it, do not change it). */
  readonly agenda: Agenda;
  /** The topic the bot asked about last (index into agenda.topics); -1 before the first question. */
  current: number;
  /** none: nothing asked yet; asked: waiting for an answer; answered: the bot acknowledged it and moves on. */
  phase: 'none' | 'asked' | 'answered';
  /** Follow-ups asked on the current topic. */
  followUps: number;
  /** What the bot asked last: the topic's question or a follow-up. */
  lastAsked: 'question' | 'follow-up' | null;
  /** The bot said its closing line. */
  closed: boolean;
  /** Per topic: a participant answered it (not only small talk). */
  covered: boolean[];
  /** The participants' lines since the bot last spoke, oldest first. */
  pending: Utterance[];
  /** The bot's last line was cut off by someone talking over it. */
  cutOff: boolean;
  /** The bot has spoken before (a replaced bot-task greets by resuming). */
  botSpoke: boolean;
  /** The bot's last turn, normalised (a repeated question alternates its wordings). */
  lastBotTurn: string;
}

type BotEvent = { kind: 'ask'; topic: number } | { kind: 'follow-up' | 'ack' | 'close' };

/** Replays the transcript: the bot's own lines say what it asked, the lines after them what was answered. */
export function interviewState(prompt: string | undefined, transcript: readonly Utterance[]): InterviewState {
  const agenda = agendaFor(prompt);
  const s: InterviewState = {
    agenda,
    current: -1,
    phase: 'none',
    followUps: 0,
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
      if (s.phase === 'asked' && question && lineKind(u.text, { question }) === 'answer')
        s.covered[s.current] = true;
      i++;
      continue;
    }
    let j = i;
    while (j < transcript.length && transcript[j]!.is_bot) j++;
    const turn = transcript.slice(i, j);
    for (const e of botEvents(agenda, phrases, turn, s.current)) {
      if (e.kind === 'ask') {
        if (e.topic !== s.current) s.followUps = 0;
        s.current = e.topic;
        s.phase = 'asked';
        s.lastAsked = 'question';
      } else if (e.kind === 'follow-up') {
        s.followUps++;
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

interface Phrases {
  acks: Set<string>;
  followUps: Set<string>;
  close: string;
  /** Per topic, its question and rephrasing, normalised. */
  topics: string[][];
}

function agendaPhrases(agenda: Agenda): Phrases {
  return {
    acks: new Set(acknowledgements.map(normalised)),
    followUps: new Set([...followUps, dodgeFollowUp].flatMap(splitSentences).map(normalised)),
    close: normalised(lastQuestion),
    topics: agenda.topics.map((t) => [normalised(t.question), normalised(t.rephrased)]),
  };
}

/** What a bot turn did, in order: asked a topic, followed up, acknowledged an answer, closed. */
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
    else if (p.followUps.has(n)) events.push({ at: pos, e: { kind: 'follow-up' } });
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
      if (!/\?["'”’)]*$/.test(sentence)) continue;
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

/**
 * bot_greeting read as a sentence to say, or null when it is an instruction to the bot ("Greet them warmly and
 * introduce yourself as their interviewer", "Please welcome the candidate", "You should say hello"): an
 * instruction is never spoken word for word. Words a person says to the room ("Hi, I'm Ava from Acme!",
 * "Welcome to Acme!", "Thanks for joining") are. When in doubt it is a sentence only if it reads like one.
 */
export function greetingSentence(greeting: string | undefined): string | null {
  const g = greeting?.trim();
  if (!g) return null;
  if (isGreetingInstruction(g)) return null;
  return /[.!?]$/.test(g) ? g : `${g}.`;
}

/** Words said to the room: a greeting word, thanks, or the speaker introducing themselves. */
const spokenOpening =
  /^(?:hi|hello|hey|hiya|howdy|greetings\b(?!\s+(?:them|the|each|every|our|all)\b)|good (?:morning|afternoon|evening|day)|g'day|thanks|thank you|(?:it's|it is|so|really|very)? ?(?:nice|great|good|glad|lovely|pleased|wonderful|a pleasure) (?:to|that)|i'm|i am|i'll|i will|my name|this is|we're|we are|we'll|let's|let us|how are|how's|ready|shall we|welcome(?=\s*(?:$|[,!.;:—-]|\s(?:to|back|aboard|everyone|everybody|all|folks|friends|in|along|home|and)\b)))\b/i;

/** An instruction to the bot leads with a verb addressed to it (after "please", "warmly", "first", …). */
const instructionVerb =
  /^(?:greet|say|introduce|welcome|tell|explain|ask|thank|start|begin|open|kick off|lead|be|make|let|mention|describe|inform|use|keep|act|pretend|speak|address|acknowledge|offer|invite|confirm|check|wish|state|announce|express|give|set|help|remind|provide|present|outline|summari[sz]e|smile|sound|stay|respond|reply|answer|do|don't|avoid|never|always|try|ensure|include|call|refer|break the ice|establish|build|put|share|note|read|ease|open up|convey|emphasi[sz]e|highlight|let them|warm up|show|invite|ask)\b/i;
const listenerObject = /^\S+\s+(?:me|us)\b|^let's\b/i;
const leadingFiller =
  /^(?:please|kindly|just|first(?:ly)?|then|now|simply|also|and|always|briefly|warmly|politely|quickly|cheerfully|enthusiastically|gently|professionally|casually|friendly|[a-z]+ly(?=\s+(?:greet|say|introduce|welcome|tell|explain|ask|thank|start|begin|open)\b))[\s,:;-]+/i;
/** "You should …", "Your job is …", "I want you to …": the operator talking to the bot. */
const directive =
  /^(?:you (?:should|must|need to|have to|will|are to|are going to|are an?|are the|are my)|you're (?:going to|an?|the|to)|your (?:job|task|role|greeting|goal|first)|i (?:want|need|would like|'d like) you|make sure|be sure|remember to|don't|do not|never|always|try to|the bot|the greeting|greeting:|instructions?:|as (?:their|the|an?) )/i;
/** Words about the participants or the bot, not to them: "the candidate", "them", "yourself as their interviewer". */
const aboutThem =
  /\b(?:the (?:candidate|participant|interviewee|attendee|user|guest|caller|customer|applicant|person|people|group|team|room)s?|them|their|they|themselves|as (?:their|the|an?) \w+|in (?:one|a single|two|a few|1|2) sentences?|in an? \w+ (?:tone|manner|way)|(?:short|brief|warm|friendly|quick|polite|casual) (?:greeting|welcome|hello|intro|introduction)|mention(?:ing)?|explain(?:ing)?|introduc(?:e|ing) yourself)\b/i;

function isGreetingInstruction(text: string): boolean {
  let g = text.replace(/^["'“”‘’]+|["'“”‘’]+$/g, '').trim();
  if (directive.test(g)) return true;
  if (spokenOpening.test(g))
    return aboutThem.test(g) && !/\b(?:i'm|i am|my name)\b/i.test(g) && thirdPerson(g);
  for (let i = 0; i < 4 && leadingFiller.test(g); i++) g = g.replace(leadingFiller, '');
  if (directive.test(g)) return true;
  if (spokenOpening.test(g)) return false;
  // "Welcome Casey!" greets someone by name; "Welcome the candidate" tells the bot to.
  if (/^[Ww]elcome,?\s+[A-Z]/.test(g)) return false;
  if (instructionVerb.test(g)) return !listenerObject.test(g);
  // A description of the greeting rather than the greeting: "Something short", "Warm and professional".
  if (/^something\b/i.test(g) || onlyManner.test(g)) return true;
  return aboutThem.test(g);
}

const onlyManner =
  /^(?:(?:very|really|quite|short|brief|warm|warmly|friendly|professional|casual|formal|polite|upbeat|enthusiastic|cheerful|concise|welcoming|kind|calm|relaxed|positive|energetic|and|but|yet|not too \w+)[\s,]*)+[.!]?$/i;

/** After a greeting word, only words about the participants in the third person make it an instruction. */
function thirdPerson(g: string): boolean {
  return /\b(?:the (?:candidate|participant|interviewee|attendee|user|guest|caller|applicant)s?|them|their|they)\b/i.test(
    g,
  );
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}

async function* nothing(): AsyncIterable<string> {}

export class LocalConversationEngine implements ConversationEngine {
  greet(ctx: ConversationContext): AsyncIterable<string> {
    const s = interviewState(ctx.prompt, ctx.transcript);
    const topics = s.agenda.topics;
    // A replaced bot-task rejoins a conversation it already leads: it picks up where the transcript stands.
    if (s.botSpoke) {
      if (topics.length === 0 || s.closed) return nothing();
      return once(`Sorry, I lost my connection for a moment. ${resume(s, 'rephrase')}`);
    }
    const hello = greetingSentence(ctx.greeting) ?? `Hello everyone, I'm ${ctx.botName}.`;
    if (topics.length === 0) return once(`${hello} I'll be listening and taking notes.`);
    const count = topics.length === 1 ? 'one question' : `${topics.length} questions`;
    return once(`${hello} I have ${count} for you. ${topics[0]!.question}`);
  }

  reply(ctx: ConversationContext): AsyncIterable<string> {
    const line = nextLine(interviewState(ctx.prompt, ctx.transcript));
    return line ? once(line) : nothing();
  }
}

/** What the bot says after the participants' latest words, or null to keep listening. */
export function nextLine(s: InterviewState): string | null {
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
    if (kind === 'repeat-request') return `Sure. ${closingWords(s)}`;
    return null;
  }
  switch (kind) {
    case 'back-channel':
      // "Sure", "mm-hmm" while a question waits: they are about to answer. Said over the question: finish it.
      if (s.phase === 'asked') return s.cutOff ? `Let me finish my question. ${resume(s, 'same')}` : null;
      return resume(s, 'again');
    case 'repeat-request':
      return `Sure. ${resume(s, 'rephrase')}`;
    case 'next-steps':
      return `${nextSteps(s)} ${resume(s, 'back')}`;
    case 'greeting':
      return `${/\bhow(?:'s| are| is)\b/i.test(text) ? "I'm doing well, thank you." : 'Nice to meet you.'} ${resume(s, 'again')}`;
    case 'question':
      return `Good question, I'll note it for the team. ${resume(s, 'back')}`;
    default:
      break;
  }
  // An answer, or words said over the bot.
  if (s.phase !== 'asked') return resume(s, 'again');
  if (s.cutOff) return `Let me finish my question. ${resume(s, 'same')}`;
  if (s.followUps === 0) {
    if (isDodge(text)) return dodgeFollowUp;
    if (isThin(text)) return followUps[s.current % followUps.length]!;
  }
  return advance(s, true);
}

function isFiller(kind: LineKind): boolean {
  return kind === 'back-channel' || kind === 'aside';
}

/** Too little to count as an answer: under five words besides back-channels, or no word with content. */
function isThin(text: string): boolean {
  const said = words(text).filter((w) => !isAcknowledgement(w));
  return said.length < minAnswerWords || contentStems(text).length === 0;
}

/**
 * Back to the interview after something that was not an answer: the pending question again (rephrased, or
 * as it was when it had been cut off), the next topic when the last answer was already acknowledged, or the
 * first question when none was asked yet.
 */
function resume(s: InterviewState, how: 'rephrase' | 'again' | 'back' | 'same'): string {
  const topics = s.agenda.topics;
  if (s.phase === 'none' || s.current < 0) return `${firstQuestion} ${topics[0]!.question}`;
  if (s.phase === 'answered') return advance(s, false);
  const lead = how === 'back' ? 'Now, back to my question. ' : '';
  if (s.lastAsked === 'follow-up') return `${lead}${followUps[(s.current + 1) % followUps.length]}`;
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
function advance(s: InterviewState, acknowledge: boolean): string {
  const topics = s.agenda.topics;
  const ack = acknowledge ? `${acknowledgements[Math.max(0, s.current) % acknowledgements.length]} ` : '';
  const next = s.current + 1;
  if (next < topics.length) return `${ack}${topics[next]!.question}`;
  return `${ack}${closingWords(s)}`;
}

function closingWords(s: InterviewState): string {
  const closing = s.agenda.closing;
  if (closing && /\bthank/i.test(closing)) return `${lastQuestion} ${closing}`;
  return `${lastQuestion} ${closing ? `${closing} ` : ''}Thank you very much for your time!`;
}

function nextSteps(s: InterviewState): string {
  return s.agenda.closing ?? neutralNextSteps;
}

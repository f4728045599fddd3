// The bot's opening words without a model: bot_greeting said as written when it is a sentence to the room, followed
// as far as rules can when it is an instruction; what they cannot follow is kept so engine_notes can say so.
import { capitalise, wordMap, wordSet } from '../insights/text';
import { secondPerson } from './agenda';

/**
 * bot_greeting as a sentence to say ("Hi, I'm Ava from Acme!"), or null when it is an instruction to the bot
 * ("Please welcome the candidate"): an instruction is never spoken word for word.
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
    return aboutThem.test(g) && !/\b(?:i'm|i am|my name)\b/i.test(g) && thirdPerson.test(g);
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
const thirdPerson =
  /\b(?:the (?:candidate|participant|interviewee|attendee|user|guest|caller|applicant)s?|them|their|they)\b/i;
export interface GreetingInput {
  botName: string;
  greeting?: string;
  /** Display names of the people in the room (other bots left out); undefined when unknown. */
  people?: readonly string[];
  /** How many questions the bot has: "explain the format" is followed by saying it. */
  questions: number;
}

export interface GreetingPlan {
  /** The opening words, before the agenda ("I have 3 questions for you. …"). */
  text: string;
  /** bot_greeting was an instruction to the bot, not words to say. */
  instruction: boolean;
  /** Parts of the instruction the rules could not follow, in the customer's words. */
  unfollowed: string[];
  /** The instruction's "explain the format" is covered by announcing the questions. */
  announceFormat: boolean;
}

/** Words a display name may be that are no name to greet someone by ("Guest", "iPhone", "Candidate 2"). */
const notAName =
  /^(?:guest|user|participant|candidate|interviewee|applicant|speaker|host|admin|me|test|unknown|anonymous|someone|caller|iphone|ipad|android|laptop|desktop|phone|pc|mac|zoom|teams|meeting|room|bot|recorder|notetaker)$/i;

/** The first word of a display name ("Sam Carter" → "Sam"), or null when it is no name ("Guest 2", "iPhone"). */
export function callName(displayName: string | undefined): string | null {
  const words = (displayName ?? '')
    .replace(/\s*\([^)]*\)\s*/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  // A title is not what people are called by ("Dr. Ana Lopez" → "Ana").
  while (words.length > 1 && /^(?:mr|mrs|ms|mx|dr|prof|sir|madam)\.?$/i.test(words[0]!)) words.shift();
  if (words.length === 0 || words.length > 4) return null;
  const named = (w: string) =>
    /^\p{L}[\p{L}'’.-]*$/u.test(w) && w.split('-').every((part) => !notAName.test(part));
  if (!words.every(named)) return null;
  const first = words[0]!.replace(/[.]+$/, '');
  if (first.length < 2) return null;
  return capitalise(first);
}

/** "Hello Sam", "Hello everyone" (two or more people), or "Hello" (nobody known, or a name that is none). */
function addressed(people: readonly string[] | undefined, hello = 'Hello'): string {
  if (!people || people.length === 0) return hello;
  if (people.length > 1) return `${hello} everyone`;
  const name = callName(people[0]);
  return name ? `${hello} ${name}` : hello;
}

const warmWords =
  /\b(?:warm(?:ly|th)?|friendl(?:y|ier)|cheerful(?:ly)?|enthusiastic(?:ally)?|welcom(?:e|ing)|upbeat|kind(?:ly)?|feel (?:welcome|at ease|comfortable)|put (?:them|the \w+) at ease)\b/i;
/** Words of manner, and of the greeting they describe ("something short and friendly", "a warm welcome"). */
const mannerWords = wordSet(`short brief briefly friendly warm warmly professional professionally upbeat
  positive polite politely kind concise cheerful welcoming relaxed calm casual quick quickly simple and but
  yet very really quite keep it be sound stay a an the tone in manner way not too formal enthusiastic do
  don t overly stiff
  greeting welcome hello intro introduction something`);
/** A clause with a finite verb is something to say ("the call is recorded"); without, a subject to talk about. */
const statementVerb =
  /\b(?:is|are|was|were|will|would|can|could|may|might|should|must|takes?|lasts?|works?|has|have|includes?|runs?|gets?|goes|need|needs|'s|'re|'ll)\b/i;
const whom = '(?:them|him|her|the\\s+\\w+s?|everyone|everybody|all|each\\s+\\w+)';
/** "introduce yourself as X", "tell them you are X", "you are X": the role it names itself by. */
const roleRules = [
  /\bintroduc\w*\s+yourself(?:\s+(?:briefly|warmly|quickly))?\s+as\s+(.+)$/i,
  new RegExp(`^(?:tell|let)\\s+${whom}(?:\\s+know)?\\s+(?:that\\s+)?you(?:'re|\\s+are)\\s+(.+)$`, 'i'),
  /^you(?:'re|\s+are)\s+(.+)$/i,
];
/** "thank them for X". */
const thank = new RegExp(`\\bthank\\s+(?:${whom}\\s+)?for\\s+(.+)$`, 'i');
/** "mention that X", "let them know X": words to say when X is a statement. */
const tell = new RegExp(
  `^(?:mention|explain|say|state|tell\\s+${whom}|let\\s+${whom}\\s+know|inform\\s+${whom}|remind\\s+${whom})(?:\\s+that)?\\s+(.+)$`,
  'i',
);
/**
 * How the bot opens, from bot_greeting and who is there. An instruction is read clause by clause (greet, a role,
 * warmth, thanks, what to tell them, the format, manner); anything else is listed in `unfollowed`.
 */
export function greetingPlan(input: GreetingInput): GreetingPlan {
  const { botName } = input;
  const literal = greetingSentence(input.greeting);
  if (literal) return { text: literal, instruction: false, unfollowed: [], announceFormat: false };
  const hello = addressed(input.people);
  const g = input.greeting?.trim();
  if (!g)
    return { text: `${hello}, I'm ${botName}.`, instruction: false, unfollowed: [], announceFormat: false };

  let role: string | null = null;
  let welcomeTo: string | null = null;
  let thanks: string | null = null;
  let announceFormat = false;
  const told: string[] = [];
  const unfollowed: string[] = [];
  const warm = warmWords.test(g);
  const many = (input.people?.length ?? 0) > 1;
  for (const raw of clausesOf(g)) {
    const c = stripLead(raw);
    if (!c) continue;
    const asRole = roleRules.map((r) => r.exec(c)).find(Boolean);
    const thanked = thank.exec(c);
    const welcome = /^welcome\b.*?\bto\s+(.+)$/i.exec(c);
    const telling = tell.exec(c);
    if (asRole) role = roleOf(asRole[1]!);
    else if (/\bintroduc\w*\s+yourself\b/i.test(c)) {
      // Introducing itself is what "I'm Iris" does.
    } else if (thanked) thanks = `Thank you for ${secondPerson(thanked[1]!).replace(/[.!]+$/, '')}.`;
    else if (welcome) welcomeTo = welcome[1]!.replace(/[.!]+$/, '');
    else if (/^(?:greet|welcome|say\s+(?:hello|hi|good\s+\w+)|open|start|begin|kick\s+off)\b/i.test(c)) {
      // Greeting them is what the opening does; "by name" needs a name to call them by.
      if (/\bby\s+(?:their\s+|first\s+)?name\b/i.test(c) && !many && !callName(input.people?.[0]))
        unfollowed.push(`${raw} (no name to call them by was known)`);
      else if (/\bwith\b/i.test(c) && !warmWords.test(c) && !/\b(?:hello|hi|introduction|intro)\b/i.test(c))
        unfollowed.push(raw);
    } else if (
      /^(?:explain|describe|outline|present)\s+(?:the\s+)?(?:format|structure|process|agenda|plan)\b/i.test(c)
    ) {
      if (input.questions > 0) announceFormat = true;
      else unfollowed.push(raw);
    } else if (telling && statementVerb.test(telling[1]!)) told.push(spokenClause(telling[1]!));
    else if (/^(?:make|help)\s+\S+(?:\s+\S+)?\s+feel\b/i.test(c) || onlyMannerWords(c)) {
      // Manner: the opening is short and friendly as it is.
    } else if (/^ask\s+(?:the\s+)?first\s+question\b/i.test(c)) {
      // The opening ends with the first question.
    } else unfollowed.push(raw);
  }
  const you = many ? 'you all' : 'you';
  const parts = [`${hello}, I'm ${botName}${role ? `, ${role}` : ''}.`];
  if (welcomeTo) parts.push(`Welcome to ${welcomeTo}.`);
  if (warm) parts.push(`It's great to have ${you} here.`);
  if (thanks) parts.push(thanks);
  parts.push(...told);
  return { text: parts.join(' '), instruction: true, unfollowed, announceFormat };
}

/** The clauses of an instruction: sentences, then ";", ", then", " and " between instructions. */
function clausesOf(text: string): string[] {
  return text
    .split(
      /(?<=[.!?;])\s+|;\s*|,?\s+(?:and\s+)?then\s+|,\s+(?=[a-z]+\s)|\s+and\s+(?=(?:please\s+)?(?:greet|welcome|say|introduce|thank|tell|let|mention|explain|ask|describe|invite|be|keep|make|open|start|begin|offer|share|remind|inform)\b)/i,
    )
    .map((c) => c.trim().replace(/[.!;,\s]+$/, ''))
    .filter(Boolean);
}

/** Drops what only leads into an instruction: "Please", "You should", "Your job is to", "First,". */
const leadWords =
  /^(?:please|kindly|just|first(?:ly)?|then|now|also|always|briefly|warmly|politely|quickly|simply)[\s,:-]+/i;
const leadPhrases =
  /^(?:you\s+(?:should|must|need\s+to|have\s+to|will)|your\s+(?:job|task|role|goal)\s+is\s+to|i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to|make\s+sure\s+(?:to|you)|be\s+sure\s+to|remember\s+to|try\s+to|as\s+(?:their|the|an?)\s+\w+)[\s,]+/i;
function stripLead(clause: string): string {
  let c = clause;
  for (let i = 0; i < 4; i++) {
    const next = c.replace(leadWords, '').replace(leadPhrases, '');
    if (next === c) break;
    c = next;
  }
  return c.trim();
}

function onlyMannerWords(clause: string): boolean {
  const ws = clause.toLowerCase().match(/[a-z]+/g) ?? [];
  return ws.length > 0 && ws.every((w) => mannerWords.has(w));
}

/** "their friendly interviewer from Acme" → "your interviewer from Acme": manner words are for the voice, not the title. */
function roleOf(text: string): string {
  return secondPerson(text.trim().replace(/[.!]+$/, ''))
    .replace(/\b(?:friendly|warm|kind|helpful|polite|professional|cheerful|nice)\s+/gi, '')
    .replace(/^(?:a|an)\s+(\S)/i, (_m, first: string) => `${/[aeiou]/i.test(first) ? 'an' : 'a'} ${first}`);
}

const self = wordMap(`you:I your:my yours:mine yourself:myself you're:I'm you've:I've you'll:I'll`);
/** What the instruction says to tell them, said by the bot: you → I (the bot), they → you (the room). */
function spokenClause(text: string): string {
  const swapped = text
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/\b(?:you're|you've|you'll|yourself|yours|your|you)\b/gi, (w) => self[w.toLowerCase()] ?? w)
    .replace(/\bI\s+(?:are|is)\b/g, 'I am')
    .replace(/\bI\s+works\b/g, 'I work');
  return `${capitalise(secondPerson(swapped))}.`;
}

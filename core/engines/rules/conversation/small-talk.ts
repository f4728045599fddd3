// What a participant's words are when they are not an answer: greetings, back-channels, "could you repeat
// that?", asides, fragments, questions to the bot. The local engine and the Q&A extraction both read them so.
import { isYesNoQuestion, questionKind } from '../insights/questions';
import {
  endsAsking,
  endsSentence,
  isAcknowledgement,
  splitSentences,
  wordSet,
  words,
} from '../insights/text';

export type LineKind =
  /** Broken off ("So my last project was", "um"): more is coming. */
  | 'fragment'
  /** "Hold on", "let me think", "one second": the speaker is not done. */
  | 'aside'
  /** "ok", "mm-hmm", "sure", "go ahead". */
  | 'back-channel'
  /** "Hi", "Hello, I'm Casey", "Thanks for having me", "How are you?". */
  | 'greeting'
  /** "Sorry, could you repeat that?", "What was the question?". */
  | 'repeat-request'
  /** "What are the next steps?", "When will I hear back?". */
  | 'next-steps'
  /** Any other question put to the bot instead of an answer. */
  | 'question'
  /** Everything else: an answer (maybe a poor one). */
  | 'answer';

const hesitation = /^(?:um+|uh+|er+m?|uhm|hmm+|hm+|mm+|ah+|eh|well|so|and|but|like|i mean|you know)$/;
/**
 * Words a finished sentence does not end on; a line ending on one without punctuation was cut short. Kept
 * small on purpose: a complete answer mistaken for a fragment leaves the bot silent.
 */
const danglingWord = wordSet(`a an the and or but so because of my our your their his her its um uh er erm
  uhm i we than if whether`);
const asidePattern =
  /^(?:(?:oh|ok(?:ay)?|sorry|um+|uh+|hmm+|so|well),?\s+)*(?:hold on|hang on|wait|one (?:sec(?:ond)?|moment|minute)|just a (?:sec(?:ond)?|moment|minute)|give me a (?:sec(?:ond)?|moment|minute)|let me (?:think|see|remember)|good question|that's a good question|that is a good question|bear with me|excuse me a moment|sorry,? (?:my )?(?:dog|door|phone|internet|connection)\b.*)[.!…,]*(?:\s+(?:let me (?:think|see)|hmm+|um+)[.!…]*)?$/i;
/** What makes words a greeting (one of these must be there). */
const greetingCore =
  /\b(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day)|(?:nice|great|good|pleased|glad|lovely) to (?:meet|see|talk to) you(?: too)?|(?:thanks|thank you)(?: so much)? for (?:having|inviting) me|(?:thanks|thank you) for the invitation|(?:happy|glad|excited|great|good) to be here|how are you(?: doing)?(?: today)?|how's it going|how are things|i'm (?:good|fine|well|great|doing well)|likewise)\b/gi;
/** Someone introducing themselves by name (and role): "I'm Meeting Bot", "I'm Iris, the screening assistant". */
const introduction =
  /\b(?:I'm|I am|[Mm]y name is|[Mm]y name's|[Tt]his is)\s+\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*){0,2}(?:,?\s+(?:the|your|an?)\s+[\p{L}-]+(?:\s+[\p{L}-]+)?(?=[.!,]|$))?/gu;
/** What may come with a greeting: names, "everyone", an introduction, thanks. */
const greetingFiller =
  /\b(?:everyone|everybody|all|there|folks|thanks|thank you|you too|too|i'm|i am|my name is|this is|it's|and|so|yes|yeah|ok|okay|well|nice|great|good|very|much|doing|today)\b/gi;
const repeatPattern =
  /\b(?:(?:could|can|would|will) you (?:please )?(?:repeat|rephrase|say (?:that|it|this) again)|repeat (?:that|it|this|the question|yourself|please)|rephrase (?:that|it|the question)|say (?:that|it|this) again|come again|pardon|(?:didn't|did not|couldn't|could not|can't|cannot) (?:catch|hear|understand|get) (?:that|it|this|you|the question|what you said)|what was the question|what's the question|(?:say|ask) (?:it|that|the question) one more time|what did you (?:say|ask)|i missed (?:that|it|the question)|you (?:cut out|broke up|froze)|you're breaking up|you are breaking up|say again)\b/i;
const bareRepeat =
  /^(?:(?:oh|sorry|um+|uh+|i'm sorry),?\s+)*(?:(?:sorry|what|huh|eh|hmm|excuse me|pardon)\s*\?+|(?:pardon(?: me)?|come again|excuse me)[.!?]*)$/i;
const nextStepsPattern =
  /\b(?:next steps?|what(?:'s| is| happens| comes)? next|what happens (?:now|after(?: this)?|from here)|hear (?:back|from you)|when (?:will|do|can|should|would|might) (?:i|we) (?:hear|know|get|find out)|timeline|how long (?:until|before|will it take|does it take|is the process)|(?:the )?process from here|follow[- ]?up|get back to me|decision)\b/i;
/** Bare yes or no: the answer to a yes/no question, and only a back-channel after any other. */
const yesNo =
  /^(?:yes|yeah|yep|yup|no|nope|nah|i do|i don't|i did|i didn't|i have|i haven't|sure|of course|definitely|not really)[.!]*$/i;

/**
 * What a participant's words (everything they said since the bot last spoke) are: a repeat request; a question to
 * the bot (the last sentence asks, after fewer than five words); a back-channel, fragment, aside or greeting; else
 * an answer. `question`: the question they follow, if any (a bare "yes" answers a yes/no question).
 */
export function lineKind(text: string, ctx: { question?: string } = {}): LineKind {
  const t = text.replace(/\s+/g, ' ').trim();
  const ws = words(t);
  if (ws.length === 0) return 'fragment';
  if (ws.length <= 15 && (repeatPattern.test(t) || bareRepeat.test(t))) return 'repeat-request';

  const sentences = splitSentences(t);
  const last = sentences.at(-1) ?? t;
  const before = words(sentences.slice(0, -1).join(' ')).filter((w) => !isGreetingWord(w));
  if (isAsking(last) && before.length < 5) {
    if (nextStepsPattern.test(last)) return 'next-steps';
    if (isGreeting(last)) return 'greeting';
    return 'question';
  }
  if (yesNo.test(t) && ctx.question && isYesNoQuestion(ctx.question)) return 'answer';
  if (isBackChannel(t)) return 'back-channel';
  if (isFragment(t)) return 'fragment';
  if (asidePattern.test(t)) return 'aside';
  if (isGreeting(t)) return 'greeting';
  return 'answer';
}

/** Small talk: words that answer no question (greetings, back-channels, repeat requests, asides). */
export function isSmallTalk(text: string): boolean {
  const kind = lineKind(text);
  return kind === 'greeting' || kind === 'back-channel' || kind === 'repeat-request' || kind === 'aside';
}

/** Verbs before "to" that leave an infinitive without its verb ("We decided to"). */
const beforeInfinitive = wordSet(
  'want wanted need needed going have had decided tried used able like love hoping planning trying',
);
/** A line that stops mid-thought: ends on "…", "-" or ",", or on a word no sentence ends with, or only hesitates. */
export function isFragment(text: string): boolean {
  const t = text.trim();
  const ws = words(t);
  if (ws.length === 0) return true;
  if (ws.every((w) => hesitation.test(w))) return true;
  if (/(?:\.\.\.|…|[-–—,;:])$/.test(t)) return true;
  if (endsSentence(t)) return false;
  const last = ws.at(-1)!;
  if (danglingWord.has(last)) return true;
  // "So my last project was" stops before its point; "that's what it was" does not.
  if (/^(?:is|was|were|are)$/.test(last))
    return !ws.some((w) => /^(?:what|how|who|where|why|which|when)$/.test(w));
  // "We decided to": an infinitive without its verb.
  return last === 'to' && beforeInfinitive.has(ws.at(-2) ?? '');
}

const isAsking = (sentence: string) => endsAsking(sentence) || questionKind(sentence) === 'question';
const isGreetingWord = (w: string): boolean =>
  /^(?:hi|hello|hey|sorry|oh|ok|okay|so|well|um|uh|thanks|thank|you|yes|yeah)$/.test(w);

/** Greeting phrases, names and thanks only ("Hi Iris!", "Hello, I'm Casey, happy to be here"). */
function isGreeting(text: string): boolean {
  const stripped = text.replace(greetingCore, ' ');
  if (stripped.length === text.length) return false;
  // Names said with it are part of a greeting: "Hello Ivy, I'm Meeting Bot."
  const unnamed = stripped.replace(introduction, ' ');
  const rest = words(unnamed.replace(greetingFiller, ' ')).filter((w) => !isAcknowledgement(w));
  // What is left may be a name or two ("Iris", "Casey").
  return rest.length <= 2 && words(text).length <= 16;
}

const backChannelPhrases =
  /^(?:(?:ok(?:ay)?|sure|yes|yeah|yep|alright|all right|right|great|cool|perfect|fine|sounds good|got it|mm-hmm|uh-huh|mhm|go ahead|go on|please go ahead|ready|i'm ready|i am ready|let's go|let's do it|let's start|shoot|fire away|absolutely|of course|no problem|happy to|sure thing|understood|i see|sorry|oops|my bad|no worries|sorry about that|sorry to (?:cut in|interrupt|jump in|butt in|cut you off))[,.!\s]*)+$/i;
const isBackChannel = (text: string): boolean =>
  isAcknowledgement(text) || backChannelPhrases.test(text.trim());
/** A dodge: "I don't know", "no idea", "I'd rather not say", "pass". */
export const isDodge = (text: string): boolean => words(text).length <= 14 && dodge.test(text);
const dodge =
  /\b(?:i (?:don't|do not) know|(?:i )?(?:have )?no idea|not sure|(?:can't|cannot|don't) (?:remember|recall|think of)|(?:i'd|i would) rather not|prefer not|no comment|pass|skip (?:this|that|it)|next question|nothing comes to mind|(?:i )?(?:don't|do not) have (?:one|any|an example)|never (?:had|done) (?:one|that|it))\b/i;

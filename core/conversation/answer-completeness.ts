// Whether a person's answer is finished, from its meaning rather than its last word: what they were asked, and what
// they have said since. A finished sentence is not a finished answer — "Sure." before the story, "There are two
// reasons." before the reasons, one sentence in reply to "Tell me about…" — and a pause after such a sentence is
// where a bot that reads only punctuation speaks into a person's answer. The offline counterpart of a model judging
// the end of the turn (core/conversation/turn-taking.ts combines it with the words' ending).
import type { Utterance } from '../bots/transcript';

/** What the end-of-turn rule knows of the conversation when a participant's final words arrive. */
export interface TurnContext {
  /** The bot's last line before this answer (its question), if any. */
  asked?: string;
  /** The participant's words since then, the final words being judged included. */
  answer: string;
}

/**
 * `open`: the answer has not yet answered (a preface, an announced list or story, too little for an open question);
 * `done`: it hands the turn back (a question back, a closing formula); `unclear`: the meaning does not tell.
 */
export type AnswerState = 'open' | 'done' | 'unclear';

/** Sentences that only preface an answer: an acknowledgement, a hedge, a request for time. */
const preface =
  /^(?:(?:yes|yeah|yep|sure|okay|ok|right|well|so|um+|uh+|oh|hmm+|alright|absolutely|definitely|of course|good question|great question|that's a (?:good|great) question|let me think|let me see|let's see|hm+|i mean|honestly|i think so|sure thing|no|nope)[\s,.!…]*)+$/i;

/** A sentence that announces what follows: "There are two reasons.", "Here's the thing:", "For example,". */
const announces =
  /\b(?:there (?:are|were) (?:two|three|four|a few|several|a couple of) (?:\w+ )?(?:things|reasons|ways|parts|steps|problems|points|ideas|options|sides)|here's (?:the thing|what|how|why)|(?:a|one) (?:couple|few) (?:of )?things|for example|for instance|first of all|firstly|the first (?:one|thing|step|reason) (?:is|was)|let me (?:explain|tell you|give you|walk you)|long story|it's a long story|it started when|i'll give you)\b/i;

/** Formulas that close an answer or hand the turn back. */
const closes =
  /\b(?:so yeah|that's (?:it|about it|all|pretty much it|the story|my answer)|that is (?:it|all)|anyway|if that makes sense|does that (?:answer|make sense)|i hope that (?:answers|helps)|that's what i (?:did|do|think)|and that's (?:it|how|why|what)|so that's (?:it|how|why|what))[.!?]*$/i;

/** Questions that ask for an account — several sentences — rather than a fact. */
const openQuestion =
  /\b(?:tell (?:me|us) (?:about|more|a bit)|describe|walk (?:me|us) through|talk (?:me|us) through|explain|how (?:did|do|would|have) you|why (?:did|do|would)|what (?:was|is) (?:it|that) like|what happened|give (?:me|us) an example|can you (?:say|share|talk|tell) (?:a bit )?(?:more|about)|go into (?:a little )?more detail|what (?:was|is) (?:the|your) (?:hardest|biggest|most)|what would you do)\b/i;

/** Words an account of something takes at least, in reply to an open question (a short spoken paragraph). */
const accountWords = 25;

const words = (text: string) => text.match(/[\p{L}\p{N}']+/gu) ?? [];

/** The sentences of spoken text (a mark and white space, or its end). */
const sentencesOf = (text: string) =>
  text
    .split(/(?<=[.!?…])\s+/)
    .map((s) => s.trim())
    .filter((s) => words(s).length > 0);

/** What the answer so far means for the turn, from what was asked and what has been said. */
export function answerState(context: TurnContext): AnswerState {
  const said = sentencesOf(context.answer.replace(/[’‘]/g, "'"));
  const last = said.at(-1) ?? '';
  if (!last) return 'unclear';
  if (/\?["')\]]*$/.test(last) || closes.test(last)) return 'done';
  // Nothing but a preface yet ("Sure.", "Yeah, well."), or a sentence announcing what follows.
  if (said.every((s) => preface.test(s)) || announces.test(last)) return 'open';
  const asked = (context.asked ?? '').replace(/[’‘]/g, "'").trim();
  if (openQuestion.test(asked) && words(context.answer).length < accountWords) return 'open';
  return 'unclear';
}

/**
 * The context of final words from the transcript so far: the bot's last line, and the lines after it (of
 * `participantId` only, when given), with `finalText` at the end unless the transcript already ends with it (its
 * recorder may have taken it first).
 */
export function turnContextOf(
  transcript: readonly Utterance[],
  finalText: string,
  participantId?: string,
): TurnContext {
  let i = transcript.length;
  while (i > 0 && !transcript[i - 1]!.is_bot) i--;
  const asked = i > 0 ? transcript[i - 1]!.text : undefined;
  const lines = transcript
    .slice(i)
    .filter((u) => participantId === undefined || u.participant_id === participantId)
    .map((u) => u.text.trim());
  if (lines.at(-1) !== finalText.trim()) lines.push(finalText.trim());
  return { ...(asked !== undefined && { asked }), answer: lines.join(' ') };
}

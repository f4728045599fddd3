// Which sentences are questions put to others, and which are tags, echoes or back-channels ("right?", "was it?").

/** Discourse openers stripped before looking at how a sentence starts ("So, tell me about…"). */
const opener =
  /^(?:(?:\[[^\]]*\]|so|and|but|okay|ok|well|now|yeah|yes|alright|all right|um+|uh+|oh|right|cool|great|then|also|anyway|sorry|actually)[,.:;!-]*\s+)+/i;
const auxiliaries =
  "is|are|was|were|do|does|did|would|could|can|should|will|shall|have|has|had|might|may|must|am|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|wouldn't|couldn't|can't|won't|shouldn't|haven't|hasn't";
/**
 * Wh-questions without a question mark: the wh-word followed by an auxiliary or a fixed phrase (not "which":
 * without a question mark "Which was kind of funny." is a relative clause).
 */
const whOpening = new RegExp(
  `^(?:what|why|how|when|where|who)(?:'s|'re|'d|\\s+(?:${auxiliaries}|kind|sort|type|about|happened|made|makes|else|much|many|long|often|come|exactly))\\b`,
  'i',
);
/** "What's interesting is…" is a statement; "what's the plan" is not. */
const whStatement =
  /^what(?:'s| is)\s+(?!the|your|a|an|that|this|it|our|their|his|her|going|happening|next|up)\w+/i;
/** Yes/no questions without a question mark: an auxiliary before a pronoun ("do you…", "is there…"). */
const yesNoOpening = new RegExp(
  `^(?:${auxiliaries})\\s+(?:you|we|they|there|it|he|she|i|that|this|anyone|anybody)\\b`,
  'i',
);
/** Requests that invite an answer ("tell me about…", "could you walk us through…"). */
const promptOpening =
  /^(?:please\s+)?(?:(?:tell|walk|take|talk)\s+(?:me|us)\b|(?:describe|explain|elaborate|share|give\s+(?:me|us)\s+an\s+example)\b|i(?:'d| would) (?:like|love) (?:to hear|you to (?:tell|talk|walk|describe|explain|share))|i(?:'m| am)? (?:curious|wondering|was wondering) (?:about|if|whether|what|how|why|when|where|who)\b|i wonder (?:if|whether|what|how|why)\b)/i;
const pronoun = '(?:it|that|this|they|he|she|you|we|i|there)';
/** A question tag after a comma or dash: "…, right?", "…, isn't it?", "…, don't you think?". */
const tagAfterComma = new RegExp(
  `[,;—–-]\\s*(?:right|you know|you see|yeah|yes|no|okay|ok|huh|eh|correct|true|see|innit|know what i mean|am i right|(?:${auxiliaries})\\s+${pronoun}(?:\\s+(?:think|say|agree)(?:\\s+so)?)?)\\s*\\?$`,
  'i',
);
/** A tag without a comma: "that's cool right?", "it worked, didn't it?" (negative forms only). */
const tagNoComma = new RegExp(`\\s(?:right|you know|huh|eh|innit|\\w+n't\\s+${pronoun})\\s*\\?$`, 'i');
const closing = /["'”’)\]]*$/;

export type QuestionKind = 'question' | 'tag' | 'echo';

/**
 * How a sentence reads: a genuine question; a statement closed by a tag ("That's cool, right?"); an echo of
 * at most two words ("Was it?", "Really?"); or null, no question at all.
 */
export function questionKind(sentence: string): QuestionKind | null {
  if (isQuoted(sentence)) return null;
  const s = sentence.trim().replace(/[’‘]/g, "'").replace(closing, '');
  const core = s.replace(opener, '');
  if (/\?[.!]*$/.test(s)) {
    const end = core.replace(/[?!.\s]+$/, '');
    if (end.split(/\s+/).filter((w) => /[a-z0-9]/i.test(w)).length <= 2) return 'echo';
    const tail = `${end}?`;
    return tagAfterComma.test(tail) || tagNoComma.test(tail) ? 'tag' : 'question';
  }
  if (whStatement.test(core)) return null;
  if (whOpening.test(core) || yesNoOpening.test(core) || promptOpening.test(core)) return 'question';
  return null;
}

/**
 * Reported speech: 'we think "Why not dump it down?"' quotes a question, it does not ask one. A question
 * mark inside closing quotes, or after an opening quote left open, is quoted.
 */
function isQuoted(sentence: string): boolean {
  const s = sentence.trim();
  if (/\?[!.]*["”]$/.test(s)) return true;
  const q = s.lastIndexOf('?');
  return q !== -1 && quoteLeftOpen(s.slice(0, q));
}

/** The text leaves a quote open: an odd number of straight double quotes, or a “ after the last ”. */
export const quoteLeftOpen = (text: string): boolean =>
  (text.match(/"/g) ?? []).length % 2 === 1 || text.lastIndexOf('“') > text.lastIndexOf('”');

/** A request worded as a question: "Could you tell me about…?" asks for more than "yes". */
const politeRequest =
  /^(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:tell|walk|describe|explain|share|give|talk|say|go|elaborate|expand|outline|list|name|take)\b/i;

/** A yes/no question (answerable by "yes"); wh-questions and requests are not. */
export function isYesNoQuestion(question: string): boolean {
  const core = question.replace(opener, '');
  if (politeRequest.test(core)) return false;
  return new RegExp(`^(?:${auxiliaries})\\b`, 'i').test(core) || /\bor not\b/i.test(core);
}

/** A request ("Tell me about your nursing experience?") is named without the question mark an interviewer gave it. */
export function asRequested(question: string): string {
  return /^(?:tell|walk|describe|explain|give|talk|share|take)\b/i.test(question)
    ? question.replace(/\?$/, '')
    : question;
}

// Text helpers of the local insights engine: sentences, words, stop words, fillers and speaker turns.
import type { Utterance } from '../../../bots/transcript';

/** The words of a list written as text ("a an the"), as a set. */
export const wordSet = (list: string): Set<string> => new Set(list.split(/\s+/).filter(Boolean));
/** Word pairs written as text ("am:is have:has"), as a map from the first word to the second. */
export const wordMap = (pairs: string): Record<string, string> =>
  Object.fromEntries([...wordSet(pairs)].map((p) => p.split(':') as [string, string]));
/** Words that carry no topic: English function words plus the small talk of spoken conversation. */
const stopWordList = `a about above after again against all almost along already also although always am among an
and another any anybody anyone anything anyway anyways are aren't around as ask asked at away back be became because
become been before being below best better between big both but by came can can't cannot could couldn't did didn't
do does doesn't doing don't done down during each either else enough especially etc even ever every everybody
everyone everything exactly few first for from further gave get gets getting give given go goes going gone good got
gotten great guess had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him
himself his how how's however i i'd i'll i'm i've if in instead into is isn't it it'd it'll it's its itself just
keep kind know knew known last least less let let's like likely little lot lots made make makes making many may
maybe me mean means meant might mine more most mostly much must my myself need needs never new next no nobody none
nor not nothing now of off often oh ok okay on once one ones only onto or other others otherwise our ours ourselves
out over own part per perhaps please pretty probably put quite rather re really right said same saw say saying says
see seem seemed seems seen several shall she she'd she'll she's should shouldn't show since so some somebody someone
something sometimes somewhat sort still stuff such sure take taken tell than thank thanks that that's the their
theirs them themselves then there there's these they they'd they'll they're they've thing things think thinking
this those though thought through thus to today together too took toward towards try trying two under until up
upon us use used using very via want wanted wants was wasn't way ways we we'd we'll we're we've well went were
weren't what what's whatever when where where's whether which while who who's whole whom whose why will with within
without won't would wouldn't yeah yes yet you you'd you'll you're you've your yours yourself yourselves
actually ah alright anyhow basically bit cool definitely er erm gonna gotta hey hm hmm huh laughs laughter mhm mm
mmm nice okay oops uh uhm um unintelligible wanna whatnot wow yep yup kinda sorta totally literally awesome
crosstalk three four five six seven eight nine ten time times day days year years people person guy guys
remember point points look looks looking looked cause 'cause feel feeling felt come comes coming different long
idea ideas start started starting talk talking talked doing happen happened happens happening sense case fact
end able kinds everybody course certain call called later question questions answer bit yeah work working
worked sorry true wait guys anymore whatever wonder wondering couldn ain't would've could've should've
week weeks month months hour hours minute minutes second seconds tomorrow yesterday tonight morning`;

export const stopWords: ReadonlySet<string> = wordSet(stopWordList);
/** Hesitation sounds; counted by the filler rate and dropped from summary sentences. */
const hesitations = wordSet(`um uh er erm uhm hmm hm mm mmm ah eh`);
/** Verbal fillers of more than one word, counted by the filler rate (their words count once each). */
const fillerPhrases = /\b(?:you know|i mean|kind of|sort of)\b/g;
const abbreviations = wordSet(`mr mrs ms dr prof st vs etc e.g i.e inc ltd jr sr no approx`);
/** Lower-case words of a text: letters and digits, with inner apostrophes kept (it's, don't). */
export const words = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .match(/[a-z0-9]+(?:'[a-z]+)*/g) ?? [];
export const wordCount = (text: string): number => words(text).length;

/** A light stem (plural endings only) so "controls" and "control" count as one term. */
export function stem(word: string): string {
  if (word.length <= 3 || word.includes("'")) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is|ous)$/.test(word)) return word.slice(0, -1);
  return word;
}

export const isContentWord = (word: string): boolean =>
  word.length > 2 && !stopWords.has(word) && !/^\d+$/.test(word);
export const sharedCount = (a: ReadonlySet<string>, b: ReadonlySet<string>): number =>
  [...a].filter((t) => b.has(t)).length;
export const contentStems = (text: string): string[] => words(text).filter(isContentWord).map(stem);

/** Fillers (hesitations and filler phrases) in a text, as a count of filler words. */
export function fillerCount(text: string): number {
  const ws = words(text);
  return ws.filter((w) => hesitations.has(w)).length + (ws.join(' ').match(fillerPhrases) ?? []).length;
}

/** Closing quotes and brackets that may follow the mark ending a sentence ('…done."', "(…right?)"). */
const closers = `["'”’)\\]]*\\s*$`;
const sentenceEnd = new RegExp(`[.!?…]${closers}`);
const questionEnd = new RegExp(`\\?${closers}`);
export const endsSentence = (text: string): boolean => sentenceEnd.test(text);
export const endsAsking = (text: string): boolean => questionEnd.test(text);

/**
 * Sentences of a text. Splits after . ! ? and … when the next word starts a sentence, and at blank lines;
 * keeps abbreviations (Dr., e.g.) and initials together.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  const boundary = /([.!?…]+)(["'”’)\]]*)(\s+)(?=["'“‘([]?[A-Z0-9])|\n\s*\n/g;
  let start = 0;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    if (m[1] === '.') {
      const before = /([A-Za-z.]+)$/.exec(text.slice(start, m.index))?.[1] ?? '';
      if (abbreviations.has(before.toLowerCase()) || /^[A-Z]$/.test(before)) continue;
    }
    const end = m.index + (m[1]?.length ?? 0) + (m[2]?.length ?? 0);
    pushSentence(out, text.slice(start, end));
    start = m.index + m[0].length;
  }
  pushSentence(out, text.slice(start));
  return out;
}

function pushSentence(out: string[], raw: string) {
  const s = raw.replace(/\s+/g, ' ').trim();
  if (/[a-z0-9]/i.test(s)) out.push(s);
}

/** Acknowledgements and discourse markers that open a spoken sentence ("Yes, so GitLab has…"). */
const leadingMarkers =
  /^(?:\s*(?:yeah|yes|yep|so|and|but|well|okay|ok|oh|um+|uh+|right|now|alright)\b[,.]?)+\s+/i;

/**
 * A sentence made readable for a summary: no hesitations, [stage notes] or opening "yes, so"; capitalised and
 * closed by punctuation.
 */
export function tidySentence(sentence: string): string {
  let s = sentence
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/(^|[\s,])(?:um+|uh+|erm|uhm|er)(?=[\s,.!?]|$)[,]?/gi, '$1')
    .replace(/\s+([,.!?;:])/g, '$1')
    .replace(leadingMarkers, '')
    .replace(/^[\s,;:-]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
  s = s.replace(/[,;:\s-]+$/, '');
  if (!s) return s;
  s = capitalise(s);
  return /[.!?…"'”’)]$/.test(s) ? s : `${s}.`;
}

/** The first `max` words of a text, cut at a sentence end when one is near, else marked with an ellipsis. */
export function truncateWords(text: string, max: number): string {
  const sentences = splitSentences(text);
  let kept = '';
  let count = 0;
  for (const s of sentences) {
    const n = wordCount(s);
    if (count + n > max) break;
    kept = kept ? `${kept} ${s}` : s;
    count += n;
  }
  if (count >= max * 0.5 || (kept && count === wordCount(text))) return kept;
  // One long first sentence (or nothing fitted): cut inside it at a word boundary.
  const tokens = text.replace(/\s+/g, ' ').trim().split(' ');
  let taken = 0;
  let i = 0;
  for (; i < tokens.length && taken < max; i++) if (/[a-z0-9]/i.test(tokens[i]!)) taken++;
  return `${tokens
    .slice(0, i)
    .join(' ')
    .replace(/[,;:\s-]+$/, '')}…`;
}

/** One sentence of a turn, with the utterance it came from (for `asked_at`). */
export interface TurnSentence {
  text: string;
  utterance: number;
}

/** Consecutive speech of one speaker (utterances of the same speaker merged; see buildTurns). */
export interface Turn {
  speaker: string;
  isBot: boolean;
  sentences: TurnSentence[];
  /** Index of the first utterance of the turn. */
  utterance: number;
}

export const turnText = (turn: Turn, from = 0, to = turn.sentences.length): string =>
  turn.sentences
    .slice(from, to)
    .map((s) => s.text)
    .join(' ');
/** Words that only acknowledge ("yeah", "mm-hmm", "that's cool") and answer nothing by themselves. */
const acknowledgements = wordSet(`yeah yes yep yup yea ya no nope nah okay ok kay 'kay alright all right
  sure mm hmm mhm mmm hm uh um huh oh ah wow cool nice great awesome exactly totally absolutely true indeed
  interesting really i see got it thanks thank you that's that is so well good fine agreed correct
  definitely of course perfect fair enough laughs right uh-huh sounds makes sense me too too pretty very
  just and yay oops sorry excellent`);
export const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A quote inside a sentence: double quotes inside it become single ones. */
export const quote = (text: string) => `"${text.replace(/["“”]/g, "'")}"`;

/** A back-channel: at most five words, all of them acknowledgements. */
export function isAcknowledgement(text: string): boolean {
  const ws = words(text.replace(/\[[^\]]*\]/g, ' '));
  return ws.length <= 5 && ws.every((w) => acknowledgements.has(w));
}

export const isBotUtterance = (u: Utterance, botName?: string): boolean =>
  u.is_bot === true || (botName !== undefined && botName !== '' && u.speaker === botName);

/**
 * Speaker turns: consecutive utterances of one speaker. A turn that breaks off mid-sentence and resumes after
 * others' back-channels ("mm-hmm") is stitched back together without them, as in the AMI and ICSI transcripts.
 */
export function buildTurns(utterances: readonly Utterance[], botName?: string): Turn[] {
  const turns: Turn[] = [];
  utterances.forEach((u, index) => {
    const text = u.text.trim();
    if (!text) return;
    const sentences = splitSentences(text).map((s) => ({ text: s, utterance: index }));
    if (sentences.length === 0) return;
    const last = turns.at(-1);
    if (last && last.speaker === u.speaker) {
      last.sentences.push(...sentences);
      return;
    }
    const resumed = resumableTurn(turns, u.speaker);
    if (resumed !== -1 && !isAcknowledgement(text)) {
      const target = turns[resumed]!;
      turns.length = resumed + 1;
      target.sentences.push(...sentences);
      return;
    }
    turns.push({ speaker: u.speaker, isBot: isBotUtterance(u, botName), sentences, utterance: index });
  });
  return turns;
}

/** Index of an open (unpunctuated) turn of `speaker` followed only by up to two back-channels, or -1. */
function resumableTurn(turns: Turn[], speaker: string): number {
  for (let back = 1; back <= 2; back++) {
    const i = turns.length - 1 - back;
    const gap = turns.slice(i + 1);
    if (i < 0 || !gap.every((t) => t.speaker !== speaker && isAcknowledgement(turnText(t)))) return -1;
    const turn = turns[i]!;
    if (turn.speaker === speaker) {
      return endsSentence(turn.sentences.at(-1)?.text ?? '') ? -1 : i;
    }
  }
  return -1;
}

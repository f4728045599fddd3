// Spoken sentences rewritten for a written summary: disfluencies out, and first person turned into third
// ("I'll send the notes" by Bob → "Bob will send the notes"; "we should use rubber" → "they should use rubber").
import { stopWords, words } from './text';

/** Hesitation sounds, bracketed stage notes and filler phrases: never part of a summary. */
const noise = [
  /\[[^\]]*\]/g,
  /(^|[\s,])(?:um+|uh+|erm|uhm|er|hmm+|mm+|mm-hmm|uh-huh|ah|eh)(?=[\s,.!?]|$)[,]?/gi,
  // Asides: "the quality, I think, is key".
  /()\s*,\s*(?:i think|i guess|i believe|i suppose|i'd say|we think|in a sense|if you will|so to speak|you know|i mean|you see),/gi,
  /(^|[\s,])(?:you know|i mean|you see|if you like|as it were)(?=[\s,.!?]|$)[,]?/gi,
  // Addressing the chair: "Mr. Chair, the important consideration…".
  /(^|[\s,])(?:mr\.?|madam|mister|madame|mme\.?)\s+(?:chair|speaker|president|chairman|chairwoman|chairperson)\b[,]?/gi,
  // "kind of"/"sort of" as a filler, not as a noun phrase ("what kind of battery").
  /(^|[\s,])(?<!\b(?:what|this|that|the|a|some|any|which|same|every|one|other|that's|what's)\s)(?:kind of|sort of|kinda|sorta)(?=\s)/gi,
];

/** Openers that only carry the talk forward ("Yeah, so, basically, …"). */
const opener =
  /^(?:\s*(?:yeah|yes|yep|no|so|and|or|but|well|okay|ok|oh|right|now|alright|all right|actually|basically|anyway|also|then|like|just|great|good|cool|sure|fine|mm-hmm|uh-huh|i think|i guess|i believe|i suppose|i reckon|i mean|i feel like|i'd say|i would say|i know|personally|obviously)\b[,.:;!-]*)+\s+/i;

/** A question tag or an aside closing a statement: "…, no?", "…, right?", "…, I think." */
const closer =
  /[,;—–-]\s*(?:no|right|yeah|yes|okay|ok|isn't it|don't you think|you know|i think|i guess|or something(?: like that)?|or whatever|and so on|and stuff|and things like that|et cetera)\s*[?.!]*$/i;

/** "I this is…": an "I" before a word that cannot be its verb was a false start. */
const falseStartI =
  /^I\s+(?=(?:this|that|the|a|an|it|there|we|you|they|so|and|but|what|how|if|my|our|these|those)\b)/;

/** Two-letter words of English; any other short lower-case token in speech is a cut-off start ("th", "wi"). */
const twoLetterWords = new Set(
  'an as at be by do go he hi if in is it me my no of oh on or ox so to up us we ok tv pc id'.split(' '),
);
/** Words that legitimately stand between two of the same word ("one by one", "more and more"). */
const linking = new Set(['by', 'and', 'to', 'or', 'after', 'for', 'upon', 'over', 'in', 'on', 'at', 'from']);
/** A capitalised function word inside a sentence: the speaker started again ("We will We use titanium"). */
const restart =
  /\s(?:We|It|The|This|That|So|And|But|You|They|There|What|How|Well|Okay|OK|Yeah|Yes|Or|If|My|Our|Then|Because|Now|First|Also|Just|Maybe|Actually|Basically|Anyway)[\s,]/g;

/**
 * A spoken sentence as written text: no hesitations, fillers, stage notes, stutters ("to to"), cut-off
 * words, talk-managing openers ("yeah so I think") or closing tags (", right?"); when the speaker started
 * again, what they said the second time. Not capitalised or closed: see `asSentence`.
 */
export function cleanSpoken(text: string, vocatives: ReadonlySet<string> = new Set()): string {
  let s = text.replace(/[’‘]/g, "'");
  for (const re of noise) s = s.replace(re, '$1');
  // Names of those addressed: "they're identifying the gaps, David, and…".
  s = s.replace(/(^|,\s*)([A-Z][a-z]+)(?=\s*[,.!?]|$)[,]?/g, (m, lead: string, name: string) =>
    vocatives.has(name) ? lead : m,
  );
  s = s.replace(/\s+/g, ' ').trim();
  // The last restart, when what follows it is a sentence of its own.
  let from = 0;
  for (const m of s.matchAll(restart)) {
    if (words(s.slice(m.index + 1)).length >= 3) from = m.index + 1;
  }
  s = s.slice(from);
  s = dropStutters(dropBrokenWords(dropStutters(dropFragments(s.split(' '))))).join(' ');
  let previous = '';
  while (previous !== s) {
    previous = s;
    s = s.replace(opener, '').replace(closer, '').replace(falseStartI, '').trim();
  }
  // A restart at the very end ("…go over to the Okay."), and the words it left dangling.
  s = s.replace(/\s+(?:Okay|OK|Yeah|Yes|So|Right|Alright|Um|Uh)[.!?]*$/, '');
  while (/\s(?:the|a|an|to|of|and|or|with|for|in|on|at|so|but)[.!?]*$/i.test(s)) s = s.replace(/\s+\S+$/, '');
  return s
    .replace(/\s+([,.!?;:])/g, '$1')
    .replace(/^[\s,;:.!?-]+/, '')
    .replace(/[\s,;:-]+$/, '')
    .trim();
}

const bare = (t: string | undefined) => (t ?? '').replace(/^[^\w']+|[^\w'-]+$/g, '').toLowerCase();
const key = (t: string) => t.toLowerCase().replace(/[^a-z0-9']/g, '');

/**
 * Cut-off starts of words: "th-", a stray letter, a two-letter token that is no English word ("wi"); a unit after a
 * number ("900 ms") and an acronym ("CI") stay.
 */
function dropFragments(tokens: string[]): string[] {
  return tokens.filter((t, i) => {
    const w = bare(t);
    if (/-$/.test(t)) return false;
    if (/^[a-z]$/.test(w)) return w === 'a' || (w === 'i' && t.startsWith('I'));
    if (i > 0 && /\d[\d,.]*$/.test(tokens[i - 1]!)) return true;
    // An acronym said in capitals is a name ("Argo CD", "CI"), not a cut-off word.
    if (/^[A-Z]{2}$/.test(t.replace(/[^\w]/g, ''))) return true;
    return !(/^[a-z]{2}$/.test(w) && !twoLetterWords.has(w));
  });
}

/** A word broken off and said again: "the user interf interface", "the moder the modern material". */
function dropBrokenWords(tokens: string[]): string[] {
  return tokens.filter((t, i) => {
    const w = bare(t);
    const next = [bare(tokens[i + 1]), bare(tokens[i + 2])];
    return !(
      /^[a-z]{3,}$/.test(w) &&
      !stopWords.has(w) &&
      next.some((n) => n.length > w.length && n.startsWith(w))
    );
  });
}

/** Stutters and restarts of one or two words: "I I", "I I'll", "the the", "we will we will", "they then they". */
function dropStutters(tokens: string[]): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    const k = key(t);
    const last = out.length ? key(out.at(-1)!) : '';
    if (k && k === last) continue;
    // "I I'll", "we we're": the bare pronoun was a false start of the contraction.
    if (last && k.startsWith(`${last}'`)) out.pop();
    const n = out.length;
    if (n >= 3 && `${key(out[n - 3]!)} ${key(out[n - 2]!)}` === `${key(out[n - 1]!)} ${k}`) {
      out.pop();
      continue;
    }
    // "they then they get", "the Wi the Wizard": a short false start between two of the same word.
    if (n >= 2 && k === key(out[n - 2]!) && key(out[n - 1]!).length <= 4 && !linking.has(key(out[n - 1]!))) {
      out.pop();
      continue;
    }
    out.push(t);
  }
  return out;
}

/** Capitalised and closed with a period (unless it already ends in punctuation). */
export function asSentence(text: string): string {
  const s = text.trim().replace(/[,;:\s-]+$/, '');
  if (!s) return s;
  const capital = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?…]$/.test(capital) ? capital.replace(/\?$/, '.') : `${capital}.`;
}

/** First person (singular and plural) turned into third: we → they, our → their, me → them… */
const pronouns: [RegExp, string][] = [
  [/\bI am\b/g, 'they are'],
  [/\bI was\b/g, 'they were'],
  [/\bI'm\b/g, "they're"],
  [/\bI've\b/g, "they've"],
  [/\bI'll\b/g, "they'll"],
  [/\bI'd\b/g, "they'd"],
  [/\bI\b/g, 'they'],
  // "we" also in "we're", "we'll": the contraction reads the same after "they".
  [/\bwe\b/gi, 'they'],
  [/\bme\b/gi, 'them'],
  [/\bus\b/g, 'them'], // case-sensitive: not "US"
  [/\bmy\b/gi, 'their'],
  [/\bour\b/gi, 'their'],
  [/\bmine\b/gi, 'theirs'],
  [/\bours\b/gi, 'theirs'],
  [/\b(?:myself|ourselves)\b/gi, 'themselves'],
  [/\blet's\b/gi, 'they should'],
];

/** The text with first person turned into third ("we should use our budget" → "they should use their budget"). */
export function thirdPerson(text: string): string {
  let s = text;
  for (const [re, to] of pronouns) s = s.replace(re, to);
  return s;
}

/** Verbs that keep their form after "he", "she" or a name. */
const modals = new Set(['can', 'could', 'will', 'would', 'should', 'shall', 'must', 'might', 'may']);
const irregular: Record<string, string> = {
  am: 'is',
  "'m": 'is',
  have: 'has',
  "'ve": 'has',
  do: 'does',
  "don't": "doesn't",
  go: 'goes',
  "'ll": 'will',
  "'d": 'would',
};
/** Adverbs between "I" and its verb ("I just want"). */
const adverbs = new Set([
  'just',
  'also',
  'really',
  'actually',
  'still',
  'already',
  'always',
  'never',
  'probably',
  'definitely',
  'only',
  'even',
  'then',
  'now',
  'usually',
  'personally',
]);
const pastForms = new Set(
  'was were did had said thought found made got took saw came gave knew told wrote sent put set ran went brought bought felt kept left meant met paid read heard held built spent understood'.split(
    ' ',
  ),
);

/** The verb after a third-person subject: "want" → "wants", "have" → "has", "will"/"found" unchanged. */
export function thirdPersonVerb(verb: string): string {
  const v = verb.toLowerCase();
  if (irregular[v]) return irregular[v];
  if (modals.has(v) || pastForms.has(v) || v.endsWith('ed') || v.endsWith("n't") || !/^[a-z]+$/.test(v)) {
    return verb;
  }
  if (/(?:s|sh|ch|x|z|o)$/.test(v)) return `${verb}es`;
  if (/[^aeiou]y$/.test(v)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/**
 * "I'll send it" by Bob → "Bob will send it"; a sentence not opening with "I" → null. The rest of the
 * sentence is put in third person too.
 */
export function withSubject(clause: string, subject: string): string | null {
  const m = /^I(?:('m|'ve|'ll|'d)|\s+([A-Za-z']+))\b\s*(.*)$/.exec(clause);
  if (!m) return null;
  if (m[1]) return `${subject} ${thirdPersonVerb(m[1])} ${thirdPerson(m[3] ?? '')}`.trim();
  const rest = `${m[2]} ${m[3] ?? ''}`.trim().split(' ');
  let i = 0;
  while (i < rest.length - 1 && adverbs.has(rest[i]!.toLowerCase())) i++;
  rest[i] = thirdPersonVerb(rest[i]!);
  return `${subject} ${thirdPerson(rest.join(' '))}`.trim();
}

/** How a point was made, for "Marketing suggested that…": a proposal, an opinion or a statement. */
function reportingVerb(spoken: string): string {
  const s = spoken.toLowerCase();
  if (
    /\b(?:we should|we could|let's|how about|what about|why don't we|i suggest|i propose|maybe we)\b/.test(s)
  ) {
    return 'suggested';
  }
  if (/\b(?:i think|i guess|i believe|i feel|i suppose|in my opinion)\b/.test(s)) return 'thought';
  return 'said';
}

/**
 * A spoken sentence as reported speech in the summary: "Marketing said that young people like soft
 * materials.", "Bob will send the notes by Friday." (a sentence of the speaker about themselves), or null
 * when nothing readable is left.
 */
export function reportedSpeech(
  spoken: string,
  speaker: string,
  vocatives: ReadonlySet<string> = new Set(),
): string | null {
  const clause = cleanSpoken(spoken, vocatives);
  if (words(clause).length < 3) return null;
  const own = withSubject(clause, speaker);
  if (own) return asSentence(own);
  // Lower-case the opening word unless it is an acronym ("SRI", "TV").
  const body = /^[A-Z][A-Z0-9]+\b/.test(clause) ? clause : clause.charAt(0).toLowerCase() + clause.slice(1);
  return asSentence(`${speaker} ${reportingVerb(spoken)} that ${thirdPerson(body)}`);
}

/** A verb form a reader can see (an auxiliary, a modal, a contraction, a past form): a clause, not a list. */
export function hasVerbForm(text: string): boolean {
  return /\b(?:am|is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|must|may|might|\w+'(?:s|re|ve|ll|d|m)|\w{3,}ed)\b/i.test(
    text,
  );
}

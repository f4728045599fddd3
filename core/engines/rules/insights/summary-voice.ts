// Spoken sentences rewritten for a written summary: disfluencies out, and first person turned into third
// ("I'll send the notes" by Bob → "Bob will send the notes"; "we should use rubber" → "they should use rubber").
import { capitalise, stopWords, wordMap, wordSet, words } from './text';

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
const twoLetterWords = wordSet(`ad am an as at ax be by do ex go he hi if in is it ma me my no of oh on or
  ox pa so to up us we yo ok tv pc id`);
/** Titles and company endings written with a period ("St. Mary's", "Dr. Patel", "Hargreaves & Co."): part of a name. */
export const nameAbbreviation = /^(?:St|Dr|Mr|Mrs|Ms|Mt|Ft|Co|Jr|Sr|Prof|Rev|Capt|Sgt|Lt)\.$/;
/** Words after which a capitalised "The" or "It" starts a name, not a restart ("at The Ivy"). */
const beforeName = /^(?:at|in|on|of|from|to|for|with|by|into|about|called|named|joined|left|visit|visited)$/i;
/** Words that legitimately stand between two of the same word ("one by one", "more and more"). */
const linking = wordSet(`by and to or after for upon over in on at from`);
/** A capitalised function word inside a sentence: the speaker started again ("We will We use titanium"). */
const restart =
  /\s(?:We|It|The|This|That|So|And|But|You|They|There|What|How|Well|Okay|OK|Yeah|Yes|Or|If|My|Our|Then|Because|Now|First|Also|Just|Maybe|Actually|Basically|Anyway)[\s,]/g;

/** A spoken sentence as written text, without disfluencies; after a restart, the second try. See `asSentence`. */
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
    const before = /(\S+)$/.exec(s.slice(0, m.index))?.[1] ?? '';
    const after = s.slice(m.index + m[0].length).trimStart();
    // "at The Ivy", "read The Times": a name, not the speaker starting again.
    if (beforeName.test(before) || /^[A-Z][a-z]/.test(after)) continue;
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
  // "in"/"on" closing a finished sentence are the verb's ("called his daughter in."), not left dangling.
  while (/\s(?:the|a|an|to|of|and|or|with|for|at|so|but)[.!?]*$|\s(?:in|on)$/i.test(s))
    s = s.replace(/\s+\S+$/, '');
  return s
    .replace(/\s+([,.!?;:])/g, '$1')
    .replace(/^[\s,;:.!?-]+/, '')
    .replace(/[\s,;:-]+$/, '')
    .trim();
}

const bare = (t: string | undefined) => (t ?? '').replace(/^[^\w']+|[^\w'-]+$/g, '').toLowerCase();
const key = (t: string) => t.toLowerCase().replace(/[^a-z0-9']/g, '');

/** Drops cut-off starts of words ("th-", a stray letter, "wi"); a unit after a number and an acronym ("CI") stay. */
function dropFragments(tokens: string[]): string[] {
  return tokens.filter((t, i) => {
    const w = bare(t);
    if (/-$/.test(t)) return false;
    // "St.", "Dr.", "Co.": a title or a company's ending; "Al", "Ed": a name.
    if (nameAbbreviation.test(t.replace(/^["'“‘(]+/, '')) || (i > 0 && /^[A-Z][a-z]$/.test(t))) return true;
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
  const capital = capitalise(s);
  return /[.!?…]$/.test(capital) ? capital.replace(/\?$/, '.') : `${capital}.`;
}

/** First person turned into third ("we should use our budget" → "they should use their budget"). */
const third =
  wordMap(`I:they I'm:they're I've:they've I'll:they'll I'd:they'd us:them we:they me:them my:their
  our:their mine:theirs ours:theirs myself:themselves ourselves:themselves`);

export function thirdPerson(text: string): string {
  return (
    text
      .replace(/\bI (am|was)\b/g, (_m, verb: string) => (verb === 'am' ? 'they are' : 'they were'))
      // Case-sensitive: not "US". "we" also in "we're", "we'll": the contraction reads the same after "they".
      .replace(/\b(?:I(?:'m|'ve|'ll|'d)?|us)\b/g, (w) => third[w]!)
      .replace(/\b(?:we|me|my|our|mine|ours|myself|ourselves)\b/gi, (w) => third[w.toLowerCase()]!)
      .replace(/\blet's\b/gi, 'they should')
  );
}

/** Verbs that keep their form after "he", "she" or a name. */
const modals = wordSet(`can could will would should shall must might may`);
const irregular = wordMap(`am:is 'm:is have:has 've:has do:does don't:doesn't go:goes 'll:will 'd:would`);
/** Adverbs between "I" and its verb ("I just want"). */
const adverbs = wordSet(`just also really actually still already always never probably definitely only even
  then now usually personally`);
/** Irregular past forms: they read the same after a name ("I sat with him" → "Maria sat with him", not "sats"). */
const pastForms = wordSet(`was were did had said thought found made got took saw came gave knew told wrote
  sent put set ran went brought bought felt kept left meant met paid read heard held built spent understood
  sat stood began drove ate fed taught caught sought fought won lost led slept swept wept spoke broke chose
  froze woke wore tore swore rode rose shook became overcame sang rang sprang drank sank shrank swam grew
  threw flew drew blew fell dealt lent bent lit quit split let cut shut hurt cost bled fled sped sold bound
  ground wound struck stuck dug hung swung stung spun shone forgot hid slid bit laid withdrew oversaw
  undertook mistook misled rebuilt rewrote reran upheld forgave`);

/** The verb after a third-person subject: "want" → "wants", "have" → "has", "will"/"found" unchanged. */
function thirdPersonVerb(verb: string): string {
  const v = verb.toLowerCase();
  if (irregular[v]) return irregular[v];
  if (modals.has(v) || pastForms.has(v) || v.endsWith('ed') || v.endsWith("n't") || !/^[a-z]+$/.test(v)) {
    return verb;
  }
  return withS(verb);
}

const bareWord = (t: string) => t.replace(/^[^\w']+|[^\w']+$/g, '');
const firstPerson = /^I(?:'m|'ve|'ll|'d)?$/;
/** What follows a verb (not a noun) in a coordination: an object, a particle ("and roll back", "and use the trim"). */
const afterVerb =
  /^(?:the|a|an|every|each|my|our|their|his|her|its|this|that|these|those|some|all|any|no|it|them|him|me|us|one|back|up|down|out|off|over|through|away|around|everything|everyone|together)$/i;
/** Words of time after "each", "every", "last"…: "each month" says when, it is no object. */
const timeWord =
  /^(?:day|night|week|weekend|fortnight|month|quarter|year|morning|afternoon|evening|time|shift|season)s?$/i;
/** A subject of its own: the coordination of the first verb ends there. */
const ownSubject = /^(?:I|I'm|I've|I'll|I'd|we|we're|we've|they|they're|he|she|it|it's|you|there|there's)$/i;
/** Words before an "I" that make the clause someone else's, or a compound subject ("Sam and I"). */
const otherSubject = /^(?:we|our|us|you|your|they|their|he|she|it|my|me|and|or|nor)$/i;
/** Past forms that are also present ones: "I cost every dish and use the trim" is present, "I set up … and met" past. */
const sameInPast = wordSet(`cost put set cut let hit quit shut hurt split read spread bet cast burst`);

/** A verb with the third person's "-s": "wants", "fixes", "carries". */
function withS(verb: string): string {
  if (/(?:s|sh|ch|x|z|o)$/i.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/i.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** A present-tense verb that takes "-s" after a name ("want", not "will", "found" or "have"). */
const takesS = (verb: string) => thirdPersonVerb(verb) === withS(verb);
const replaceWord = (token: string, to: (word: string) => string) => {
  const word = bareWord(token);
  return word ? token.replace(word, to(word)) : token;
};

/** Index of the verb from `i`, past adverbs ("I just want", "I usually reach"). */
function verbIndex(tokens: readonly string[], i: number): number {
  let v = i;
  while (v < tokens.length - 1 && (adverbs.has(bareWord(tokens[v]!).toLowerCase()) || /ly$/.test(tokens[v]!)))
    v++;
  return v;
}

/** "I'm" → "is", "I've" → "has", "I'll" → "will", "I'd" → "would"; null for a bare "I". */
function contracted(token: string): string | null {
  const m = /^I('m|'ve|'ll|'d)$/.exec(bareWord(token));
  return m ? token.replace(/^I'\w+/, thirdPersonVerb(m[1]!)) : null;
}

/** The verb after a dropped "I" (from `i`) made to agree with a name, with the verbs joined to it. */
function agree(tokens: string[], i: number): void {
  const v = verbIndex(tokens, i);
  const word = bareWord(tokens[v] ?? '');
  if (!word) return;
  const joined = coordinated(tokens, v);
  const present =
    takesS(word) || (sameInPast.has(word.toLowerCase()) && joined.some((j) => takesS(bareWord(tokens[j]!))));
  const inflect = present && sameInPast.has(word.toLowerCase()) ? withS : thirdPersonVerb;
  tokens[v] = replaceWord(tokens[v]!, inflect);
  if (present) for (const j of joined) tokens[j] = replaceWord(tokens[j]!, thirdPersonVerb);
}

/**
 * "I'll send it" by Bob → "Bob will send it", the rest in the third person; joined verbs and a second "I" agree.
 * With `within`, an "I" after an opening phrase is the subject too ("Before that Maria worked nights"), unless the
 * phrase has a subject of its own or speaks for a group. Null when no "I" is the subject.
 */
export function withSubject(
  clause: string,
  subject: string,
  options: { within?: boolean } = {},
): string | null {
  const tokens = clause.split(' ').filter(Boolean);
  const at = tokens.findIndex((t) => firstPerson.test(bareWord(t)));
  if (at === -1 || (at > 0 && !options.within)) return null;
  const prefix = tokens.slice(0, at);
  // "My kids are at school, so I am free": the opening is a clause of its own; the sentence is reported instead.
  // A label before a colon is none ("Debugging slow Spark jobs: I cut…").
  if (
    prefix.some((t) => otherSubject.test(bareWord(t))) ||
    (prefix.length > 0 && !prefix.at(-1)!.endsWith(':') && !isFragment(prefix.join(' ')))
  ) {
    return null;
  }
  const rest = tokens.slice(at);
  const short = contracted(rest[0]!);
  if (short !== null) rest[0] = short;
  else {
    rest.shift();
    if (rest.length === 0) return null;
    agree(rest, 0);
  }
  sharedSubjects(rest);
  const head = prefix.length ? `${thirdPerson(prefix.join(' '))} ` : '';
  return `${head}${subject} ${thirdPerson(rest.join(' '))}`.trim();
}

/** Verbs joined to the one at `verbAt` ("… and use the trim", ", then debug"), up to a subject of their own. */
function coordinated(tokens: readonly string[], verbAt: number): number[] {
  const found: number[] = [];
  for (let j = verbAt + 1; j < tokens.length; j++) {
    const word = bareWord(tokens[j]!);
    if (ownSubject.test(word) || /[;:]$/.test(tokens[j - 1]!)) break;
    const prev = bareWord(tokens[j - 1]!).toLowerCase();
    if (!/^(?:and|or|then)$/.test(prev) || !/^[a-z]+$/.test(word)) continue;
    const next = bareWord(tokens[j + 1] ?? '');
    // "with sales and support each month": a time after the word, not an object.
    const when =
      /^(?:each|every|this|that|last|next)$/i.test(next) && timeWord.test(bareWord(tokens[j + 2] ?? ''));
    if (prev === 'then' || (afterVerb.test(next) && !when && !/[,.;:!?]$/.test(tokens[j]!))) found.push(j);
  }
  return found;
}

/** Words between "and" and a second "I" that keep its subject: "and before that I was", "and now I am". */
const linkingPhrase = /^(?:before|after|that|then|since|now|also|later|earlier|still|so)$/i;

/** ", and I'm happy to…" after the subject: "and is happy to…", one subject for both. */
function sharedSubjects(tokens: string[]): void {
  for (let j = 1; j < tokens.length; j++) {
    const word = bareWord(tokens[j]!);
    // "… and he slept, and I went home": past another subject, "I" is said again ("they").
    if (ownSubject.test(word) && !firstPerson.test(word)) return;
    if (!firstPerson.test(word)) continue;
    // "and I", "and before that I": the same subject goes on.
    let and = j - 1;
    while (and > 0 && j - and <= 3 && linkingPhrase.test(bareWord(tokens[and]!))) and--;
    if (!/^(?:and|but)$/i.test(bareWord(tokens[and]!)) || /[,;]$/.test(tokens[j - 1]!)) continue;
    if (and >= 1) tokens[and - 1] = tokens[and - 1]!.replace(/,$/, '');
    const short = contracted(tokens[j]!);
    if (short !== null) tokens[j] = short;
    else if (j + 1 < tokens.length) {
      tokens.splice(j, 1);
      agree(tokens, j);
    }
  }
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

/** "Marketing said that young people like soft materials.", "Bob will send the notes."; null when nothing reads. */
export function reportedSpeech(
  spoken: string,
  speaker: string,
  vocatives: ReadonlySet<string> = new Set(),
  options: ReportOptions = {},
): string | null {
  const clause = cleanSpoken(spoken, vocatives);
  if (words(clause).length < 3) return null;
  const own = withSubject(clause, speaker, options);
  if (own) return asSentence(own);
  if (options.clausesOnly && isFragment(clause)) return null;
  // Lower-case the opening word unless it is an acronym ("SRI", "TV") or a name ("Monzo").
  const first = /^[\p{L}']+/u.exec(clause)?.[0] ?? '';
  const keep = /^[A-Z][A-Z0-9]+\b/.test(clause) || options.names?.has(first.replace(/'s$/, ''));
  const body = keep ? clause : clause.charAt(0).toLowerCase() + clause.slice(1);
  return asSentence(`${speaker} ${reportingVerb(spoken)} that ${thirdPerson(body)}`);
}

export interface ReportOptions {
  within?: boolean;
  /** Names that keep their capital at the start of "… said that Monzo …". */
  names?: ReadonlySet<string>;
  /** A sentence without a verb ("About 140 units an hour.") gives null: "said that" cannot report it. */
  clausesOnly?: boolean;
}

/** Words after which a word ending in "-s" is a plural noun, not a verb ("140 units", "the reconciliations"). */
const beforeNoun =
  /^(?:\d[\d,.]*|the|a|an|my|our|your|their|his|her|its|this|that|these|those|some|many|few|all|any|no|every|each|of|for|with|in|on|at|to|from|by|about|and|or|two|three|four|five|six|seven|eight|nine|ten|twenty|hundred|thousand|million)$/i;

/** No verb a reader can see: a noun phrase or an adverb said as an answer ("About 140 units an hour with a scanner."). */
export function isFragment(text: string): boolean {
  if (hasVerbForm(text)) return false;
  const ws = text.split(/\s+/).map(bareWord);
  return !ws.some((w, i) => {
    const lower = w.toLowerCase();
    if (pastForms.has(lower) || (i > 0 && /^(?:i|we|they|he|she|it|you|there)$/i.test(ws[i - 1]!)))
      return true;
    return i > 0 && /^[a-z]{3,}s$/.test(w) && !/ss$/.test(w) && !beforeNoun.test(ws[i - 1]!);
  });
}

/** A verb form a reader can see (an auxiliary, a modal, a contraction, a past form): a clause, not a list. */
export const hasVerbForm = (text: string): boolean => verbForm.test(text);
const verbForm =
  /\b(?:am|is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|must|may|might|\w+'(?:s|re|ve|ll|d|m)|\w{3,}ed)\b/i;

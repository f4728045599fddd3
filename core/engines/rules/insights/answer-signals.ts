// What the local engine can measure in one answer: its specifics, its vagueness, its hedges and dodges.
// These feed the per-question assessment of the rubric (rubric.ts); README.md "Evaluation" lists the words.
import { nameAbbreviation } from './summary-voice';
import { contentStems, fillerCount, splitSentences, truncateWords, wordCount, wordSet } from './text';

/** Figures: digits, number words, currency and percent. ("one" is left out: "one of the things".) */
const figure =
  /\d|[%$€£]|\b(?:for|in|within|after|every|each|once|twice) (?:an?|one) (?:hour|minute|day|night|week|fortnight|month|year)\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|half|twice|double|triple|percent)\b/i;
/** Outcome verbs; they count when the same sentence carries a figure or a name ("latency went from 900 ms to 240"). */
const outcomeVerb =
  /\b(?:reduc\w*|cut|cuts|dropp?\w*|fell|increas\w*|improv\w*|sav(?:e|ed|es|ing)|shipp?\w*|launch\w*|fix(?:ed|es)?|resolv\w*|eliminat\w*|doubl\w*|halv\w*|grew|went (?:from|down|up)|caught|prevent\w*|sped up|faster|fewer|lower(?:ed)?|rais\w*|won|closed|stayed|came back|to zero)\b/i;
/** The speaker's own concrete actions: "I wrote", "we rolled it out", "I reproduced it". */
const ownAction =
  /\b(?:i|we)(?:'ve| have)?\s+(?:\w+ly\s+|also\s+|then\s+|first\s+|just\s+)?(?:wrote|write|built|build|added|add|set up|ran|run|traced|trace|profiled|measured|bisected|found|replaced|rewrote|migrated|moved|split|designed|introduced|automated|debugged|reproduced|tested|deployed|instrumented|benchmarked|reviewed|paired|led|created|implemented|configured|fixed|removed|refactored|used|use|switched|chose|dug|checked|logged|pinned|rolled|shipped|cut|reduced|mocked|stubbed|spun|wrapped|documented|interviewed|hired|trained|negotiated|planned|prototyped|started|founded|launched|sold|raised|hired|sat|sit|explained|explain|called|call|phoned|rang|cleaned|clean|cooked|cook|prepped|prep|costed|cost|train|taught|teach|coached|coach|mentored|mentor|met|meet|visited|visit|calmed|listened|listen|talked|asked|showed|show|organi[sz]ed|organi[sz]e|scheduled|schedule|picked|pick|packed|pack|loaded|load|sent|send|paged|page|handled|handle|prepared|prepare|served|serve|reconciled|reconcile|filed|file|audited|audit|escalated|escalate|recorded|record|monitored|monitor|administered|marked|mark|assessed|assess|closed|close|bundled|bundle|cared|care|dressed|delivered to|stocked|counted|count)\b/i;
/** A worked example or scenario: "for example", "say there's only one…", "in our case". */
const exampleMarker =
  /\b(?:for example|for instance|such as|e\.g\.|let's say|say (?:there's|there is|you have|we have)|in (?:our|my) case|a case where|one time|imagine)\b/i;
/** Buzzwords and superlatives: confident words that carry no evidence by themselves. */
const vagueWords =
  /\b(?:synerg\w*|leverag\w*|best practices?|best[- ]in[- ]class|world[- ]class|cutting[- ]edge|state[- ]of[- ]the[- ]art|paradigms?|holistic\w*|game[- ]changer|next level|rock ?star|ninja|passionate|innovative|disruptive|seamless\w*|robust|end[- ]to[- ]end|move the needle|low[- ]hanging fruit|outside the box|value[- ]add|mission[- ]critical|bleeding[- ]edge|thought leader\w*|visionary|excellence|amazing|incredibl\w*|outstanding|exceptional|flawless\w*|perfect(?:ly)?|the best|extremely|tremendous\w*|massive\w*|unparalleled|crush(?:ed)? (?:it|them)|in my dna|huge)\b/gi;
const isVague = new RegExp(vagueWords.source, 'i');
/** Hedges and dodges (README "Evaluation"): refusals, not remembering, "it depends", "hard to say". */
const evasionPatterns =
  /\b(?:i'?d rather not|i would rather not|i'?d prefer not|prefer not to|(?:can'?t|cannot) (?:really )?(?:go into|get into|talk about|share|discuss|say)|not at liberty|not (?:able|allowed) to (?:share|say|discuss)|no comment|pass on that|let'?s move on|next question|(?:that'?s|it'?s) confidential|under (?:an )?nda|i (?:do ?n[o']t|don'?t) (?:really )?(?:remember|recall|know)|i (?:can'?t|cannot) (?:remember|recall)|no idea|not sure|hard to say|difficult to say|(?:it|that) (?:all |really )?depends|case by case)\b/gi;
/**
 * Capitalised words that are not names: sentence openers, the vague capitalised words of buzz talk, and days and
 * months (dates, not named tools or places).
 */
const notNames = wordSet(`I I'm Oh Okay Ok Yeah Yes No Well So And But Like Hey Wow Right Sure Thanks Anything
  Everything Nothing Something We You They It I'd I've I'll OK AI Agile Cloud DNA DevOps Scrum CEO CTO
  Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August
  September October November December`);

export interface AnswerSignals {
  words: number;
  /** Figures and named things found (for the strengths' wording), deduplicated. */
  figures: number;
  names: string[];
  outcome: boolean;
  ownActions: boolean;
  /** A worked example or scenario ("for example", "say there's only one…"). */
  example: boolean;
  /** Kinds of specifics present: figures, names (2+, or 1 technical token), outcome, own actions, example (0..5). */
  kinds: number;
  vague: string[];
  evasions: string[];
  fillersPer100: number;
  /** The answer picks up a content word of the question (first five letters), or runs to 25+ words. */
  onTopic: boolean;
}

/** A dotted, camel-cased, numbered or all-capital token: Node.js, gRPC, PySpark, p95, AWS. */
const technicalName =
  /^[A-Za-z]+\.[a-z]{2,}$|^[a-z]+[A-Z]\w*$|^[A-Z][a-z]+[A-Z][A-Za-z]*$|^[A-Za-z]+\d+\w*$|^[A-Z]{2,6}s?$/;
/** Named things: capitalised words inside sentences, acronyms, and technical tokens (Node.js, p95, gRPC). */
function namesIn(text: string): string[] {
  const found = new Set<string>();
  for (const s of splitSentences(text)) {
    const raw = s.split(/\s+/);
    raw.forEach((token, i) => {
      // A word opening quoted speech ("'We love GitLab'") starts a sentence; possessives count as the name.
      if (/^["'“‘(]/.test(token)) return;
      const t = token.replace(/[)"'”’.,;:!?]+$/g, '').replace(/['’]s$/, '');
      if (!t || notNames.has(t) || isVague.test(t)) return;
      const technical = technicalName.test(t);
      const capitalised = i > 0 && /^[A-Z][a-z]+(?:[A-Z][a-z]+)*$/.test(t);
      if (technical || capitalised) found.add(t);
    });
  }
  return [...found];
}

const isTechnical = (name: string) => !/^[A-Z][a-z]+$/.test(name);
/** A token that is part of a name: capitalised, an acronym, or technical (PySpark, Node.js, p95). */
const nameToken = /^(?:[A-Z][A-Za-z0-9]*(?:[.-][A-Za-z0-9]+)*|[a-z]+[A-Z]\w*|[A-Za-z]+\d+\w*)$/;
/** A word that is a name wherever it stands: an acronym, camel case, digits, a dotted name (AWS, PySpark, p95, Node.js). */
const technicalToken = /^[A-Z]{2,}s?$|[a-z][A-Z]|\d|\.[a-z]/;
/** Words that join the parts of one name ("Bank of America", "Lord of the Rings" stay apart: only "of" joins). */
const nameJoiner = /^(?:of|de|van|von|&)$/;
/** Places and institutions whose name holds a possessive ("St. Mary's Hospital", "Lee's Noodle Bar"). */
const institution =
  /^(?:Hospital|Infirmary|Clinic|Surgery|Practice|Pharmacy|Hospice|School|College|University|Academy|Nursery|Church|Cathedral|Chapel|Bar|Restaurant|Kitchen|Cafe|Café|Bistro|Grill|Diner|Deli|Bakery|Hotel|Inn|Pub|Tavern|Store|Stores|Shop|Market|Bank|Centre|Center|Home|House|Hall|Park|Street|Road|Square|Gardens?|Farm|Foundation|Trust|Fund|Club|Garage|Warehouse|Depot)$/;
/** Names that take a number: "Year 4", "Ward 7", "Terminal 5". */
const numbered =
  /^(?:Year|Grade|Class|Ward|Room|Unit|Bay|Level|Stage|Floor|Terminal|Gate|Platform|Building|Block|Aisle|Zone|Station|Phase|Route|Line|Studio)$/;
/** "I", "I'm": the speaker, never part of a name ("At Monzo I built…"). */
const speakerI = /^I(?:'m|'ve|'ll|'d)?$/;
/** Function words that open a sentence before a name: "At Monzo…", "Last March…", "By July…". */
const opener =
  /^(?:at|in|on|for|from|by|with|to|of|about|after|before|during|since|until|when|while|if|as|the|a|an|this|that|these|those|last|next|most|many|some|every|each|our|my|their|his|her|its|so|and|but|or|then|also|once|now|today|yesterday|here|there|mostly|around)$/i;

/**
 * Named things kept whole: runs of capitalised or technical words ("Delta Lake", "St. Mary's Hospital", "Year 4").
 * A word opening a sentence counts only when the next word joins it ("Delta Lake stores…") or it is technical
 * ("PySpark runs…"); a function word opening it ("At Monzo…") is not part of a name.
 */
export function namedThings(text: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const s of splitSentences(text)) {
    const raw = s.split(/\s+/);
    let run: string[] = [];
    /** The words of the run as written ("St.", "Mary's"). */
    let shown: string[] = [];
    let runStart = -1;
    const flush = () => {
      while (run.length && nameJoiner.test(run.at(-1)!)) {
        run.pop();
        shown.pop();
      }
      const name = shown.join(' ');
      const single = run.length === 1 ? run[0]! : null;
      const keep =
        run.length > 1 ||
        (single !== null &&
          single.length > 1 &&
          !notNames.has(single) &&
          !isVague.test(single) &&
          (runStart > 0 || technicalToken.test(single)));
      if (name && keep && !seen.has(name.toLowerCase())) {
        seen.add(name.toLowerCase());
        found.push(name);
      }
      run = [];
      shown = [];
      runStart = -1;
    };
    raw.forEach((token, i) => {
      const quoteOpen = /^["'“‘(]/.test(token);
      const unquoted = token.replace(/^["'“‘(]+/, '');
      const abbreviation = nameAbbreviation.test(unquoted.replace(/[)"'”’,;:!?]+$/, ''));
      const t = unquoted.replace(/[)"'”’.,;:!?]+$/g, '').replace(/['’]s$/, '');
      const possessive = /['’]s$/.test(token.replace(/[.,;:!?]+$/, ''));
      const next = (raw[i + 1] ?? '').replace(/^["'“‘(]+/, '').replace(/[)"'”’.,;:!?]+$/g, '');
      // "St. Mary's Hospital", "Mr. Lee's Noodle Bar": the possessive is inside the name.
      const inside =
        possessive &&
        !/[,;:!?]$/.test(token) &&
        nameToken.test(next) &&
        (institution.test(next) || (run.length > 0 && nameAbbreviation.test(shown[0]!)));
      const ends = (!abbreviation && /[)"'”’.,;:!?]$/.test(token)) || (possessive && !inside);
      const opensSentence = i === 0 && run.length === 0 && opener.test(t);
      const part =
        t &&
        nameToken.test(t) &&
        !speakerI.test(t) &&
        !opensSentence &&
        !(notNames.has(t) && run.length === 0) &&
        !isVague.test(t);
      const count = run.length > 0 && /^\d{1,3}$/.test(t) && numbered.test(run.at(-1)!);
      if (quoteOpen && run.length) flush();
      // A capitalised word opening the sentence joins only a capitalised next word ("Delta Lake", not "Checkout p95").
      const joins = run.length > 0 && (runStart > 0 || run.length > 1 || /^[A-Z]/.test(t));
      if (run.length > 0 && part && !joins) flush();
      if (part || count || (run.length > 0 && nameJoiner.test(t))) {
        if (run.length === 0) runStart = i;
        run.push(t);
        shown.push(abbreviation ? `${t}.` : inside ? unquoted.replace(/[)"'”’.,;:!?]+$/g, '') : t);
      } else flush();
      if (ends) flush();
    });
    flush();
  }
  return found;
}

const matches = (text: string, pattern: RegExp): string[] => [
  ...new Set((text.match(pattern) ?? []).map((m) => m.toLowerCase())),
];

/** The signals of an answer to `question` (the answer as collected; `words` may be given when it was cut). */
export function answerSignals(answer: string, question: string, words = wordCount(answer)): AnswerSignals {
  const sentences = splitSentences(answer);
  const names = namesIn(answer);
  const figures = sentences.filter((s) => figure.test(s)).length;
  const outcome = sentences.some(
    (s) => outcomeVerb.test(s) && (figure.test(s) || namesIn(s).length > 0 || /\bzero\b/i.test(s)),
  );
  const ownActions = ownAction.test(answer);
  const named = names.length >= 2 || names.some(isTechnical);
  const example = exampleMarker.test(answer);
  const kinds = [figures > 0, named, outcome, ownActions, example].filter(Boolean).length;
  const key = (t: string) => t.slice(0, 5);
  const asked = new Set(contentStems(question).map(key));
  return {
    words,
    figures,
    names,
    outcome,
    ownActions,
    example,
    kinds,
    vague: matches(answer, vagueWords),
    evasions: matches(answer, evasionPatterns),
    fillersPer100: words ? (100 * fillerCount(answer)) / words : 0,
    onTopic: words >= 25 || contentStems(answer).some((t) => asked.has(key(t))),
  };
}

/** How many specifics a sentence holds (figures, names, an outcome verb, own actions): evidence ranks by it. */
const specificWeight = (sentence: string): number =>
  (figure.test(sentence) ? 2 : 0) +
  namesIn(sentence).length +
  (outcomeVerb.test(sentence) ? 1 : 0) +
  (ownAction.test(sentence) ? 1 : 0) +
  (exampleMarker.test(sentence) ? 1 : 0);

export type EvidenceKind = 'specific' | 'evasive' | 'vague' | 'filler';

const weights: Record<EvidenceKind, (s: string) => number> = {
  specific: specificWeight,
  evasive: (s) => matches(s, evasionPatterns).length,
  vague: (s) => matches(s, vagueWords).length,
  filler: (s) => fillerCount(s) / Math.max(1, wordCount(s)),
};

/**
 * The sentence of an answer that best shows `kind` (the first when none does), as a short quote of at most
 * `maxWords` words, verbatim apart from the cut ("…").
 */
export function evidenceQuote(answer: string, kind: EvidenceKind, maxWords: number): string {
  // A sentence of hesitations only ("Um.") shows nothing, unless the answer has nothing else.
  const all = splitSentences(answer).filter((s) => wordCount(s) > 0);
  const said = all.filter((s) => wordCount(s) > fillerCount(s));
  const sentences = said.length ? said : all;
  if (sentences.length === 0) return '';
  // The first of the sentences that weigh most (weights are never negative).
  const weigh = weights[kind];
  const best = sentences.reduce((b, s) => (weigh(s) > weigh(b) ? s : b));
  return truncateWords(best, maxWords);
}

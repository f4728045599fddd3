// The free-text summary_format_prompt read by the local engine: what it can honour, and what it must say it did not.
import { wordSet } from './text';

export type SummaryStyle = 'prose' | 'bullets' | 'numbered';
export type SummarySection = 'participants' | 'topics' | 'decisions' | 'actions';

/** What a summary-format prompt asks for, as far as the local engine honours it (README "Summary format"). */
export interface SummaryFormat {
  style: SummaryStyle;
  /** Number of sentences (bullets, items); undefined: everything the summary found. */
  sentences?: number;
  maxWords?: number;
  /** Say who made each point; the structured summary always does, so this changes nothing (kept for callers). */
  speakers: boolean;
  /** Sections the prompt names ("decisions and next steps"): always shown, saying so when there are none. */
  sections?: SummarySection[];
  /** Only the named sections ("just the action items"). */
  only?: boolean;
  /** A longer telling of the discussion ("detailed"): more parts of the meeting. */
  detailed?: boolean;
  /** Prose in one paragraph, not a line per section. */
  paragraph?: boolean;
}

const numberWords = new Map(
  'a single one two three four five six seven eight nine ten'
    .split(' ')
    .map((w, i) => [w, Math.max(1, i - 1)]),
);
const count = '(\\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|a|single)';
const itemCount = new RegExp(
  `\\b${count}[\\s-]+(?:short\\s+|bullet\\s+|key\\s+|main\\s+)?(?:sentences?|bullets?|points?|items?|lines?|paragraph)\\b`,
);
const wordLimit = /(\d{1,4})\s+words?\b/;
/** Each honoured instruction: what it looks like in a prompt. Anything else is reported as not followed. */
const honoured = {
  numbered: /\bnumbered\b/,
  noBullets:
    /\b(?:no|without|not (?:in|as|use)|avoid|don't use)\s+(?:any\s+)?(?:bullets?|bullet points|lists?)\b/,
  bullets: /\b(?:bullet|bullets|bulleted|list|points)\b/,
  prose: /\b(?:prose|paragraph|narrative|full sentences|running text)\b/,
  oneLine: /\b(?:tl;?dr|one-liner|one line|single line|a sentence)\b/,
  brief: /\b(?:brief|briefly|short|shorter|concise|succinct|compact|high[- ]level)\b/,
  // Not the "long" of "50 words long".
  detailed:
    /\b(?:detailed|(?<!words? )long|longer|thorough|comprehensive|in-depth|extensive|in detail|full)\b/,
  speakers: /\b(?:speakers?|who said|attribut\w*|names|who spoke)\b/,
  decisions: /\b(?:decisions?|decided|agreements?|agreed|outcomes?|conclusions?|resolutions?)\b/,
  actions:
    /\b(?:next steps?|action items?|actions|to-?dos?|tasks?|follow[- ]?ups?|owners?|who (?:will|should) do what|deadlines?|due dates?|assignments?|responsibilities)\b/,
  participants: /\b(?:participants?|attendees?|who (?:was there|attended|met|took part)|people present)\b/,
  topics:
    /\b(?:topics?|themes?|subjects?|agenda|key points|main points|highlights|what was discussed|discussion)\b/,
  only: /\b(?:only|just)\b/,
  person: /\bthird[- ]person\b/,
};

/** Reads a free-text format prompt: list style, a sentence count, a word limit, sections to show. */
export function parseSummaryFormat(prompt?: string): SummaryFormat {
  const p = (prompt ?? '').toLowerCase();
  const format: SummaryFormat = {
    style: honoured.numbered.test(p)
      ? 'numbered'
      : honoured.bullets.test(p) && !honoured.noBullets.test(p)
        ? 'bullets'
        : 'prose',
    speakers: honoured.speakers.test(p),
  };
  const n = itemCount.exec(p);
  if (n?.[1]) format.sentences = numberWords.get(n[1]) ?? Number(n[1]);
  else if (honoured.oneLine.test(p)) format.sentences = 1;
  else if (honoured.brief.test(p)) format.sentences = 3;
  else if (honoured.detailed.test(p)) {
    format.sentences = 10;
    format.detailed = true;
  }
  const w = wordLimit.exec(p);
  if (w?.[1]) format.maxWords = Math.max(5, Number(w[1]));
  if (format.sentences !== undefined) format.sentences = Math.min(15, Math.max(1, format.sentences));
  if (format.style === 'prose' && /\b(?:one|a|single) (?:short |brief )?paragraph\b/.test(p))
    format.paragraph = true;
  const sections = (['participants', 'topics', 'decisions', 'actions'] as const).filter((s) =>
    honoured[s].test(p),
  );
  if (sections.length) {
    format.sections = sections;
    if (honoured.only.test(p)) format.only = true;
  }
  return format;
}

/** Instructions the local engine cannot follow, by the reason it gives ("the local engine …"). */
const unsupported: Record<string, RegExp> = {
  'writes English only':
    /\b(?:in|into|to)\s+(?:french|spanish|german|italian|portuguese|dutch|polish|russian|chinese|mandarin|japanese|korean|arabic|hindi|turkish|swedish|danish|norwegian|finnish|greek|hebrew|czech|ukrainian|welsh|irish|catalan|vietnamese|thai|indonesian)\b|\btranslat\w*|\bfrançais|\bespañol|\bdeutsch/,
  'does not change its tone':
    /\b(?:tone|formal|informal|casual|friendly|professional|humou?rous|funny|playful|polite|enthusiastic|upbeat|empathetic|neutral|positive|negative|witty|sarcastic|persuasive|warm)\b/,
  'does not adapt to an audience':
    /\b(?:audience|for (?:an? |the |our )?(?:executives?|ceo|cto|managers?|management|board|kids?|children|child|beginners?|non-technical|engineers?|developers?|customers?|investors?|students?|stakeholders?|team|leadership))\b|\b(?:explain like|eli5|simple words|plain language|jargon)\b/,
  'writes plain text, bullets or a numbered list':
    /\b(?:markdown|headings?|headers?|bold|italics?|emojis?|table|json|html|csv|xml|yaml)\b/,
  'writes in the third person': /\bfirst[- ]person\b/,
  'reports what was said instead of quoting it': /\b(?:quotes?|quotations?|verbatim|word for word)\b/,
  'does not analyse that':
    /\b(?:sentiment|mood|emotions?|feelings?|risks?|concerns?|open questions|unresolved|pros and cons|recommendations?|advice|feedback|score|rating|timestamps?|times?)\b/,
};
/** Words of a prompt that ask for nothing in particular ("Please write a summary of the meeting"). */
const neutral = wordSet(`a an the of and or to in on for with as at by from into about this that these
  those it its is are be been please summary summaries summarise summarize summarising summarizing
  summarised summarized recap overview meeting meetings call calls conversation session discussion
  transcript write give make create provide produce generate return output keep use using make include
  including mention mentioning list listing highlight highlighting cover covering focus focusing focused
  show showing add with should must can could would will me us we our i you your my them they their what
  who how which clear clearly simple nice good well also each every all any some main key important most
  very more less than under over below above at most least no not max maximum up limit limited within
  around about approx approximately style format formatted form way text sentences sentence words word
  bullets bullet points point items item lines line paragraph paragraphs numbered list lists then there
  here so`);

/**
 * The clauses of a summary_format_prompt the local engine did not follow, with why ('"in French" (the local engine
 * writes English only)'); a clause is followed when it is honoured or asks for nothing in particular.
 */
export function unfollowedSummaryInstructions(prompt?: string): string[] {
  const out: string[] = [];
  for (const raw of clauses(prompt ?? '')) {
    const clause = raw.toLowerCase();
    const reasons = Object.entries(unsupported)
      .filter(([, pattern]) => pattern.test(clause))
      .map(([reason]) => `the local engine ${reason}`);
    if (reasons.length) {
      out.push(`"${raw}" (${reasons.join('; ')})`);
      continue;
    }
    if (
      Object.values(honoured).some((re) => re.test(clause)) ||
      itemCount.test(clause) ||
      wordLimit.test(clause)
    ) {
      continue;
    }
    const asks = (clause.match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => !neutral.has(w) && !/^\d+$/.test(w));
    if (asks.length) out.push(`"${raw}" (not understood by the local engine)`);
  }
  return out;
}

function clauses(prompt: string): string[] {
  return prompt
    .split(/[.;!?\n]+|,\s*|\s+(?:and|but|also|then)\s+/i)
    .map((c) => c.trim())
    .filter((c) => /[\p{L}\p{N}]/u.test(c));
}

/** One line for the insights saying which instructions the local summary did not follow, or null if none. */
export function summaryFormatNote(prompt?: string): string | null {
  const missed = unfollowedSummaryInstructions(prompt);
  return missed.length ? `Summary format not followed: ${missed.join('; ')}.` : null;
}

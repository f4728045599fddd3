// The agenda of a bot_prompt as people write it: the topics to cover, in order, each with a natural question,
// and the closing words the customer wants said. Pure and total: any text gives an agenda (maybe empty).
import { quoteLeftOpen } from '../insights/questions';
import { capitalise, endsAsking, splitSentences, wordMap } from '../insights/text';

export interface AgendaTopic {
  /** What to cover, addressed to the participant: "your last project", "how you test code". */
  topic: string;
  /** One spoken sentence ending in "?" that opens the topic ("Could you tell me about your last project?"). */
  question: string;
  /** The same question in other words (for "could you repeat that?"); one sentence, ends in "?". */
  rephrased: string;
}

export interface Agenda {
  topics: AgendaTopic[];
  /**
   * What the prompt says to tell the participant at the end or about next steps, addressed to them
   * ("The recruiter will contact you within a week."); null when the prompt states none.
   */
  closing: string | null;
}

/** More topics than this is not an interview the prompt meant; the rest is ignored. */
export const maxAgendaTopics = 30;
/** Prompts are at most 8,000 characters (ARCHITECTURE.md); anything longer is cut, so parsing stays linear. */
const maxPromptChars = 20_000;
const maxTopicWords = 40;

type Kind = 'question' | 'request' | 'wh' | 'verb' | 'noun';
interface RawTopic {
  text: string;
  kind: Kind;
  /** Written as a list item: the customer's own wording is kept for requests. */
  listed: boolean;
  /** Cut from inside a sentence, so its first letter's case is the author's ("Python", "their"). */
  inner: boolean;
}

/**
 * The agenda of `botPrompt`: questions, list items and prose instructions ("ask about X, Y and Z", "find out
 * whether …"), in order, without duplicates, spoken to the participant (their → your). Lists under "Rules:" or
 * "Tone:", negated instructions ("don't ask about their age") and conditionals ("if they ask …") are no topics.
 */
export function agendaOf(botPrompt: string | null | undefined): Agenda {
  const raw: RawTopic[] = [];
  let closing: string | null = null;
  const onClosing = (c: string) => {
    closing ??= c;
  };
  // Runs of punctuation ("?????") make the sentence splitter backtrack quadratically; three say the same.
  const text =
    typeof botPrompt === 'string'
      ? botPrompt.slice(0, maxPromptChars).replace(/([?.!…,;:])\1{3,}/g, '$1$1$1')
      : '';
  let listContext: 'topics' | 'other' | null = null;
  for (const rawLine of text.split(/\r?\n|\r/)) {
    const line = rawLine.trim();
    if (!line) continue;
    const item = listItem.exec(line);
    if (item) {
      if (listContext !== 'other') readItem(item[1]!.trim(), raw, onClosing);
      continue;
    }
    listContext = null;
    const sentences = splitSentences(line);
    for (const s of sentences) readSentence(s, raw, onClosing);
    const last = sentences.at(-1) ?? '';
    if (/:\s*$/.test(last))
      listContext = otherLeadIn.test(last) && !topicLeadIn.test(last) ? 'other' : 'topics';
  }
  const topics: AgendaTopic[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    if (topics.length >= maxAgendaTopics) break;
    const key = normalised(r.text);
    if (!key || seen.has(key)) continue;
    const t = buildTopic(r, topics.length);
    // What is left once labels and asides are stripped ("Q0;(B)" leaves ";") must still hold a word.
    if (!/\p{L}/u.test(t.topic) || seen.has(normalised(t.question))) continue;
    seen.add(key);
    seen.add(normalised(t.question));
    topics.push(t);
  }
  return { topics, closing };
}

/** Lower-case letters, digits and single spaces: how spoken lines are compared. */
export function normalised(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^a-z0-9']+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const listItem =
  /^(?:\(?\d{1,3}[.):]|\(?[a-zA-Z][.)]|[-*•–+▪◦]|q\d{1,3}[.:)]?|question\s+\d{1,3}\s*[.:)-])\s*(.*\S.*)$/i;
const topicLeadIn =
  /\b(?:questions?|topics?|ask|cover|areas?|agenda|discuss|find out|know|learn|screen|assess|probe|explore|subjects?|points?)\b/i;
const otherLeadIn =
  /\b(?:rules?|guidelines?|notes?|style|tone|constraints?|don'?t|do not|avoid|never|format|behaviou?r|about (?:you|us|the company)|context|background|persona)\b/i;
/** Instructions to the bot itself that a list may hold among topics ("Be friendly", "Keep it short"). */
const instruction =
  /^(?:please\s+)?(?:be|keep|stay|use|speak|thank|greet|introduce yourself|end|close|wrap|start|begin|finish|remember|note|take notes|listen|avoid|don'?t|do not|never|always|make sure (?!to ask)|try|wait|let them|allow|respond|reply|answer|say|mention|smile|act|pretend|limit|spend|move on|stop|remain|sound|refer)\b/i;
const requestStart =
  /^(?:please\s+)?(?:tell|walk|describe|explain|share|give|list|name|outline|summari[sz]e|rate|compare|elaborate|present|show|recount)\b/i;
const whStart = /^(?:what|how|why|when|where|which|who|whom|whose|whether|if)\b/i;
/** "what is their notice period", "how do they…": a direct question written without "?". */
const directWh =
  /^(?:what|how|why|when|where|which|who)(?:'s|\s+(?:is|are|was|were|do|does|did|would|could|can|should|will|have|has|had)\b)/i;

function readItem(text: string, raw: RawTopic[], onClosing: (c: string) => void): void {
  const sentences = splitSentences(text);
  const first = sentences[0] ?? text;
  // An item holding an instruction to ask ("Ask about their last project") is prose.
  if (sentences.some((s) => triggers().test(s) || closingIn(s) !== null)) {
    for (const s of sentences) readSentence(s, raw, onClosing);
    return;
  }
  if (instruction.test(first) || /^if\b/i.test(first)) return;
  if (endsAsking(first)) {
    readQuestions(first, raw, true);
    return;
  }
  addTopic(raw, first, true);
}

const who =
  '(?:them|him|her|you|the\\s+(?:candidates?|applicants?|interviewees?|participants?|person|people|users?|guests?|customers?|team)|candidates|applicants|people|everyone|each\\s+(?:candidate|person|one))';
/** Where an instruction verb may start: the start of a clause, or after a modal or connective. */
const instructionStart =
  '(?<=^|[,;:(]\\s*|\\b(?:and|also|then|to|please|should|must|will|can|always|you|first|next|finally|briefly|quickly|definitely|really|try\\s+to)\\s+)';
const triggerSource = [
  // "ask (them) (a few questions) about X", "interview them on X", "question the candidate about X"
  `(?<about>\\b(?:(?:ask|asks|asking)(?:\\s+${who})?(?:\\s+(?:some|a\\s+few|several|a\\s+couple\\s+of|any|short|brief|more|follow-up|\\d+|one|two|three|four|five))*(?:\\s+questions?)?\\s+(?:about|on|regarding|around|concerning|for)|(?:question|interview|quiz)(?:\\s+${who})?\\s+(?:about|on|regarding|concerning))\\s+)`,
  // "ask (them) whether/what/how …"
  `(?<askwh>\\b(?:ask|asks|asking)(?:\\s+${who})?\\s+(?=(?:what|how|why|when|where|which|who|whether|if)\\b))`,
  // "ask them to describe …", "get them to talk about …", "have them walk you through …"
  `(?<askto>\\b(?:(?:ask|asks|asking|get|invite|encourage)\\s+${who}\\s+to|(?:have|let)\\s+${who}(?=\\s+(?:describe|explain|walk|talk|tell|share|give|outline)\\b))\\s+)`,
  // "find out (about) …", "learn about …", "understand why …"
  `(?<find>${instructionStart}\\b(?:find\\s+out|figure\\s+out|learn|understand|establish|determine|uncover)(?:\\s+(?:more\\s+)?about)?\\s+(?=(?:about|what|how|why|when|where|which|who|whether|if|their|his|her|the|a|an|any|your)\\b))`,
  // "cover …", "discuss …", "focus on …", "go over …"
  `(?<cover>${instructionStart}\\b(?:cover|discuss|explore|probe|dig\\s+into|go\\s+over|go\\s+through|touch\\s+on|focus\\s+on|get\\s+into|inquire\\s+about|enquire\\s+about|talk\\s+(?:to\\s+${who}\\s+)?about)(?:\\s*:\\s*|\\s+)(?:(?:the\\s+)?following(?:\\s+(?:topics|points|areas|questions))?\\s*:?\\s*)?)`,
  // "screen them on …", "assess the candidate on …", "screen for …"
  `(?<screen>${instructionStart}\\b(?:screen|assess|evaluate|test|check|gauge|grill|vet)(?:\\s+${who})?\\s+(?:on|for|about|regarding)(?:\\s*:\\s*|\\s+))`,
  // "I want to know …", "we'd like to hear about …", "I'm curious about …"
  `(?<know>\\b(?:i|we|you)(?:'d|'m|'re|\\s+would|\\s+am|\\s+are|\\s+also|\\s+really|\\s+especially|\\s+mainly|\\s+mostly)*\\s+(?:want|wants|like|need|needs|wish|keen|interested|curious)(?:\\s+to\\s+(?:know|hear|understand|learn|find\\s+out)|\\s+in(?:\\s+hearing)?)?(?:\\s+(?:more\\s+)?about)?\\s+(?=(?:about|what|how|why|when|where|which|who|whether|if|their|his|her|the|a|an|any|your)\\b))`,
  // "Topics: …", "Questions to ask: …"
  `(?<label>^(?:topics?|questions?|agenda|areas?|subjects?|things\\s+to\\s+(?:ask|cover)(?:\\s+about)?|focus\\s+areas?|key\\s+areas?)(?:\\s+to\\s+(?:ask|cover|discuss))?\\s*[:—–-]\\s*)`,
].join('|');
/** A fresh regex each time: global regexes carry lastIndex. */
const triggers = () => new RegExp(triggerSource, 'gi');
const negation =
  /\b(?:don'?t|do\s+not|never|avoid|not|no\s+need\s+to|without|shouldn'?t|mustn'?t|refrain\s+from)\b[^.;,]{0,30}$/i;

function readSentence(sentence: string, raw: RawTopic[], onClosing: (c: string) => void): void {
  let s = sentence.trim();
  const close = closingIn(s);
  if (close) {
    onClosing(close.text);
    s = s.slice(0, close.at).trim();
    if (!s) return;
  }
  // Conditionals are instructions for a case, not topics ("If they ask about salary, say …"); "When could you
  // start?" is a question.
  if (/^(?:if|when|whenever|unless|in case)\b/i.test(s) && !(endsAsking(s) && directQuestion(s))) return;
  // A question written out ("Ask: Do you need a visa?") is asked as written, whatever words it holds ("you need").
  const written = s.replace(
    /^(?:(?:then|and|also|next|finally)\s+)?ask(?:\s+(?:them|the\s+candidate))?\s*[:—–-]\s*/i,
    '',
  );
  if (endsAsking(s) && directQuestion(written)) {
    readQuestions(s, raw, false);
    return;
  }
  const found = [...s.matchAll(triggers())].filter((m) => !negation.test(s.slice(0, m.index)));
  if (found.length === 0) {
    if (/\?/.test(s)) readQuestions(s, raw, false);
    // A request written to the participant ("Ask: Tell me about the last product you shipped.") is asked as written.
    else if (participantRequest.test(written)) addTopic(raw, written, true);
    return;
  }
  for (const [i, m] of found.entries()) {
    const start = m.index + m[0].length;
    const end = found[i + 1]?.index ?? s.length;
    const groups = m.groups ?? {};
    const kind: Kind | null = groups.askto ? 'verb' : groups.askwh ? 'wh' : null;
    const span = cutClause(s.slice(start, end));
    if (endsAsking(span) && !groups.askwh && directQuestion(span)) {
      readQuestions(span, raw, false);
      continue;
    }
    for (const part of listParts(span)) addTopic(raw, toParticipant(part), false, kind, true);
  }
}

/** The question sentences in a text: "Ask: why do you want this job? What salary do they expect?" */
function readQuestions(text: string, raw: RawTopic[], listed: boolean): void {
  for (const m of text.matchAll(/[^?]*\?/g)) {
    let q = m[0].trim();
    if (quoteLeftOpen(q.slice(0, -1))) continue;
    q = q.replace(/^["“'(]+/, '');
    const lead =
      /^(?:(?:then|and|also|next|finally|first(?:ly)?|second(?:ly)?|third(?:ly)?|lastly|after\s+that|afterwards|please)[,:]?\s+)*(?:ask(?:\s+(?:them|him|her|the\s+candidate|the\s+participants?|everyone|people))?(?:\s+(?:this|the\s+question|something\s+like))?\s*(?<colon>[:,—–-])?\s*)?/i.exec(
        q,
      );
    const leadText = lead?.[0] ?? '';
    let rest = q.slice(leadText.length).trim();
    if (!/[a-z]/i.test(rest)) continue;
    // "Then ask what salary they expect?" asks indirectly; "Ask: why do you want this job?" quotes the question.
    const asked = /\bask\b/i.test(leadText) && !lead?.groups?.colon;
    if (asked && whStart.test(rest) && !directQuestion(rest)) {
      addTopic(raw, toParticipant(rest.replace(/\?+$/, '')), listed, 'wh', true);
      continue;
    }
    rest = rest.replace(/\s*\?+$/, '?');
    if (rest.split(/\s+/).length < 3) continue;
    raw.push({ text: secondPerson(rest), kind: 'question', listed, inner: false });
  }
}

const directYesNo =
  /^(?:do|does|did|is|are|was|were|have|has|had|can|could|would|will|should)\s+(?:you|they|he|she|the)\b/i;
function directQuestion(text: string): boolean {
  const t = text.trim();
  return directWh.test(t) || directYesNo.test(t);
}

/** The part of a span that belongs to the instruction: it ends at "; then …", "before …", a dash aside. */
function cutClause(span: string): string {
  const stop =
    /\s*(?:;|:(?=\s*$)|\s[—–]\s|\s-\s|,?\s+(?:and\s+)?(?:then|afterwards|after\s+that|before\s+(?:you|that|moving|ending|closing|wrapping)|finally|but\s+(?:don'?t|do\s+not|never|keep|be|avoid)|so\s+that|in\s+order\s+to|while\s+(?:being|keeping|staying))\b)/i;
  const m = stop.exec(span);
  return (m ? span.slice(0, m.index) : span).trim();
}

/** "X, Y and Z" → [X, Y, Z]; commas inside parentheses and after "such as"/"e.g." stay with their item. */
function listParts(span: string): string[] {
  let text = span.replace(/[.!?…:;,\s]+$/, '');
  let tail = '';
  const example =
    /\s*(?:,\s*)?\(?\b(?:such\s+as|e\.g\.?|for\s+example|for\s+instance|including|like\s+(?=[A-Z]))/.exec(
      text,
    );
  if (example && example.index > 0) {
    tail = text.slice(example.index);
    text = text.slice(0, example.index);
  }
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(' || ch === '[') depth++;
    if ((ch === ')' || ch === ']') && depth > 0) depth--;
    if ((ch === ',' || ch === ';') && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  const items = parts.map((p) => p.trim()).filter(Boolean);
  const out: string[] = [];
  for (const [i, item] of items.entries()) {
    const listEnd = items.length > 1 && i === items.length - 1;
    out.push(...splitAnd(item, listEnd));
  }
  if (tail && out.length) out[out.length - 1] = `${out.at(-1)}${tail}`.replace(/[.!?…:;,\s]+$/, '');
  return out;
}

const itemStarter =
  /^(?:a|an|the|their|his|her|your|any|some|how|what|why|when|where|which|who|whether|if|one|two|three|to|past|previous|current|recent|prior)\b/i;

/** Splits "X and Y" when Y reads as an item of its own; the last item of a comma list always splits. */
function splitAnd(item: string, listEnd: boolean): string[] {
  const t = item.replace(/^(?:and|or|also|plus|as\s+well\s+as|then|finally)\s+/i, '');
  const parts = t.split(/\s+(?:and|as\s+well\s+as|&)\s+(?:also\s+)?/i);
  if (parts.length === 1) return [t];
  const out = [parts[0]!];
  for (const p of parts.slice(1)) {
    if (listEnd || itemStarter.test(p)) out.push(p);
    else out[out.length - 1] = `${out.at(-1)} and ${p}`;
  }
  return out;
}

/** "Tell me about …", "Walk me through …", "Describe your …": words put to the participant, not to the bot. */
const participantRequest =
  /^(?:please\s+)?(?:(?:tell|walk|talk)\s+(?:me|us)\s+(?:about|through)\b|(?:describe|explain|share)\s+(?:your|a|an|the|how|what|why|one)\b)/i;
/** The job being hired for ("screen candidates for a senior data engineer role") is not a topic. */
const theRole = /^(?:a|an|the|our|this)\s+(?:[\w-]+\s+){0,5}(?:role|position|job|opening|vacancy|post)$/i;
const vague =
  /^(?:it|that|this|these|those|them|things?|stuff|everything|anything|something|the\s+following|a\s+few\s+things|some\s+(?:things|questions|topics)|questions?|topics?|more|others?|etc\.?|the\s+rest|the\s+role|the\s+job|the\s+company|us|you|yourself|the\s+candidate|their\s+answers?)$/i;

function addTopic(
  raw: RawTopic[],
  text: string,
  listed: boolean,
  forced: Kind | null = null,
  inner = false,
): void {
  let t = text
    .replace(/^(?:and|or|also|plus|then|finally|first(?:ly)?|next|lastly|please|as\s+well\s+as)[,:]?\s+/i, '')
    .replace(/^(?:about|on|regarding)\s+/i, '')
    .replace(/\s+/g, ' ')
    .replace(/^[\s"“'(,:-]+|[\s"”',;:.!…-]+$/g, '')
    .replace(/\s+(?:and|or|then|also|plus|but|as\s+well\s+as)$/i, '')
    .trim();
  // Connectives left between two instructions ("… and ask them to …") are not a topic.
  if (
    !/[a-z]/i.test(t.replace(/\b(?:and|or|then|also|plus|but|so|the|a|an|to|of|as|well)\b/gi, '')) ||
    vague.test(t) ||
    theRole.test(t)
  )
    return;
  if (t.split(' ').length > maxTopicWords) return;
  let kind: Kind = forced ?? 'noun';
  if (/\?$/.test(t)) kind = 'question';
  else if (forced === 'verb' || (!forced && requestStart.test(t)))
    kind = forced === 'verb' ? 'verb' : 'request';
  else if (whStart.test(t)) kind = listed && directWh.test(t) ? 'question' : 'wh';
  if (kind === 'verb') t = t.replace(/^to\s+/i, '');
  if (kind === 'wh') t = t.replace(/^if\b/i, 'whether');
  if (kind === 'question' && !/\?$/.test(t)) t = `${t}?`;
  raw.push({ text: secondPerson(t), kind, listed, inner });
}

/**
 * Prose instructions speak to the bot: its "you" becomes "me" in a question to the participant ("have them
 * walk you through …" → "walk me through …"), and "your product" is "our product".
 */
const toUs = wordMap('you:me your:our yours:ours yourself:myself');
const toParticipant = (span: string): string =>
  span.replace(/\b(?:you|your|yours|yourself)\b/gi, (w) => toUs[w.toLowerCase()] ?? w);

const possessiveStart = /^(?:your|a|an|the|one|some|any|how|what|why|when)\b/i;

function buildTopic(r: RawTopic, index: number): AgendaTopic {
  // Asides in parentheses are for the reader, not for saying aloud ("your tools (editors, CI)").
  const t =
    r.text
      .replace(/\?+$/, '')
      .replace(/\s*\([^()]*\)/g, '')
      .trim() || r.text.replace(/\?+$/, '');
  // Inside a sentence the author's case stands ("Python"); at the start of an item it is only the position's.
  const lowerFirst = r.inner ? (x: string) => x : lowerStart;
  let topic = r.kind === 'question' ? t : lowerFirst(t);
  let forms: string[];
  switch (r.kind) {
    case 'question': {
      const q = `${capitalise(t)}?`;
      return { topic: t, question: q, rephrased: `In other words, ${lowerStart(q)}` };
    }
    case 'request': {
      const request = t.replace(/^please\s+/i, '');
      topic = lowerFirst(
        request.replace(
          /^(?:tell\s+(?:me|us)|talk|walk\s+(?:me|us)\s+through|describe|explain|share|recount|present)\s+(?:about\s+)?/i,
          '',
        ) || request,
      );
      // A list item written as a request is asked in the customer's words.
      const polite = `Could you ${lowerFirst(request)}?`;
      forms = r.listed ? [`${capitalise(request)}?`, polite] : [polite, `Can you ${lowerFirst(request)}?`];
      break;
    }
    case 'verb':
      forms = [`Could you ${lowerFirst(t)}?`, `Can you ${lowerFirst(t)}?`];
      break;
    case 'wh':
      forms = [`Could you tell me ${lowerFirst(t)}?`];
      if (/^how\b/i.test(t)) forms.push(`Can you walk me through ${lowerFirst(t)}?`);
      if (/^(?:how|why)\b/i.test(t)) forms.push(`Could you explain ${lowerFirst(t)}?`);
      break;
    default:
      forms = [`Could you tell me about ${lowerFirst(t)}?`, `What can you tell me about ${lowerFirst(t)}?`];
      if (possessiveStart.test(t)) forms.push(`Can you walk me through ${lowerFirst(t)}?`);
  }
  const at = r.listed && r.kind === 'request' ? 0 : index % forms.length;
  const question = forms[at]!;
  const other = forms[(at + 1) % forms.length]!;
  return {
    topic,
    question,
    rephrased: other !== question ? other : `In other words, ${lowerStart(question)}`,
  };
}

/** Lower-cases the first letter unless the word is an acronym, a camel-cased name or "I" ("API", "GitHub"). */
function lowerStart(s: string): string {
  if (/^(?:I\b|[A-Z]{2,}|[A-Z][a-z]*[A-Z])/.test(s)) return s;
  return s.charAt(0).toLowerCase() + s.slice(1);
}

const personMap = wordMap(`their:your theirs:yours them:you themselves:yourself themself:yourself they:you
  they're:you're they've:you've they'd:you'd they'll:you'll`);
const verbAfterYou = wordMap(
  `has:have is:are was:were does:do doesn't:don't isn't:aren't wasn't:weren't hasn't:haven't`,
);

/** Speaks to the participant: "their last project" → "your last project", "the candidate has" → "you have". */
export function secondPerson(text: string): string {
  return text
    .replace(
      /\b(?:the\s+(?:candidate|applicant|interviewee|participant|person)'s|his\s+or\s+her|his\/her|her\/his)\b/gi,
      'your',
    )
    .replace(
      /\b(?:the\s+(?:candidate|applicant|interviewee|participant)|he\s+or\s+she|he\/she|she\/he|him\s+or\s+her|him\/her)\b/gi,
      'you',
    )
    .replace(/\b(?:their|theirs|them|themselves|themself|they(?:'re|'ve|'d|'ll)?)\b/gi, (w) => {
      const to = personMap[w.toLowerCase().replace(/’/g, "'")] ?? w;
      return w.charAt(0) === w.charAt(0).toUpperCase() ? capitalise(to) : to;
    })
    .replace(
      /\byou\s+(has|is|was|does|doesn't|isn't|wasn't|hasn't)\b/gi,
      (_m, verb: string) => `you ${verbAfterYou[verb.toLowerCase()] ?? verb}`,
    );
}

const closingCue =
  /\b(?:at\s+the\s+end|in\s+the\s+end|to\s+(?:close|finish|end|wrap\s+up)|when\s+(?:you(?:'re|\s+are)\s+)?(?:done|finished)|when\s+(?:the\s+(?:interview|call|meeting)|it)\s+(?:is\s+)?(?:over|ends|done|finished)|before\s+(?:you\s+)?(?:end|finish|close|leave|hang\s+up|wrap(?:ping)?\s+up|saying\s+goodbye)|finally|afterwards|(?:end|close|finish|wrap\s+up|wrap)\s+(?:by|with)|next\s+steps?|what\s+happens\s+next|in\s+closing|lastly)\b/i;
const tellClause =
  /\b(?:tell(?:ing)?|let(?:ting)?|inform(?:ing)?|remind(?:ing)?|assur(?:e|ing)|explain(?:ing)?\s+to|say(?:ing)?\s+to)\s+(?:them|the\s+(?:candidate|applicant|participants?|interviewee)|him|her|everyone)(?:\s+know)?(?:\s+that)?\s*[:,]?\s+(.+)$/i;
const sayClause = /\b(?:say|saying|mention|mentioning)\s+(?:that\s+)?[:,]?\s*(.+)$/i;
const quoted = /["“]([^"”]{2,400})["”]/;

/** The closing words a sentence asks for, and where its closing instruction starts; null when it has none. */
function closingIn(sentence: string): { text: string; at: number } | null {
  const label = /^next\s+steps?\s*[:—–-]\s*(.+)$/i.exec(sentence);
  if (label) return { text: spoken(`Next steps: ${label[1]}`), at: 0 };
  const cue = closingCue.exec(sentence);
  if (!cue) return null;
  // The instruction begins at the cue or at the clause before it ("tell them X at the end").
  const clauseStart = Math.max(
    0,
    sentence.lastIndexOf(',', cue.index) + 1,
    sentence.lastIndexOf(';', cue.index) + 1,
  );
  const from = sentence.slice(clauseStart);
  const q = quoted.exec(from);
  // Quoted words are said as written, if they are words at all (`" #"` is not).
  if (
    q &&
    /[a-z]/i.test(q[1]!) &&
    /\b(?:say|tell|with|by|saying|telling|mention)\b/i.test(from.slice(0, q.index))
  ) {
    return { text: spoken(q[1]!, false), at: clauseStart };
  }
  const said = tellClause.exec(from) ?? sayClause.exec(from);
  if (!said) return null;
  let words = said[1]!.replace(/^(?:that|something\s+like)\s+/i, '');
  // "tell them about our team" is a topic for the bot to present, not words to say.
  if (/^(?:about|how|what|why|whether|if|to)\b/i.test(words)) return null;
  // "… at the end" after the words themselves belongs to the instruction.
  words = words.replace(
    /\s*,?\s*(?:at\s+the\s+end|in\s+the\s+end|when\s+you(?:'re|\s+are)\s+done|before\s+you\s+(?:end|leave|finish)).*$/i,
    '',
  );
  if (!/[a-z]/i.test(words) || words.split(/\s+/).length > 60) return null;
  return { text: spoken(words), at: clauseStart };
}

function spoken(words: string, shift = true): string {
  const t = (shift ? secondPerson(words) : words).replace(/\s+/g, ' ').trim();
  const c = capitalise(t.replace(/^["“'\s]+|["”'\s]+$/g, ''));
  return /[.!?…]$/.test(c) ? c : `${c}.`;
}

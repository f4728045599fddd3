// What a meeting decided and who will do what next, read from how people speak when they settle or take on something.
import { questionKind } from './questions';
import type { SpokenSentence } from './summary-points';
import { cleanSpoken, hasVerbForm, thirdPerson } from './summary-voice';
import {
  contentStems,
  endsSentence,
  fillerCount,
  isAcknowledgement,
  sharedCount,
  type Turn,
  turnText,
  wordSet,
  words,
} from './text';

/** A decision, as the clause the summary puts after "decided" ("to go with a yellow case", "that …"). */
export interface Decision {
  text: string;
  sentence: number;
}

/** A next step: who, what, and by when if said. */
export interface ActionItem {
  /** A participant; or, for "we will…", null with `speaker` saying it for the group. */
  owner: string | null;
  speaker: string;
  /** The verb phrase after "will". */
  task: string;
  due: string | null;
  sentence: number;
}

/** Reported, conditional, hypothetical or past talk settles nothing ("I said we should…", "if we…"). */
const notSettled =
  /\b(?:said|says|told|thought|was like|were like|would have|used to|wanted to|were going to|was going to|if|unless|whether|in case|supposed to|maybe|perhaps|might|not sure|don't know|or not)\b|["“”]/i;
/** Reported or conditional talk commits no one to anything. */
const notCommitted =
  /\b(?:said|says|told|was like|were like|would have|used to|wanted to|were going to|was going to|if|unless|whether)\b|["“”]/i;
/** Explicit settling: "we decided/agreed…", "let's go with…", "we'll go for…", "the decision is…". */
const settled =
  /\b(?:(?:we(?:'ve| have)?|everyone|everybody) (?:decided|agreed)\b|(?:it's|it is|that's|that is) (?:decided|agreed|settled)|(?:the|our|final) decision (?:is|was)|we(?:'re| are) (?:all )?agreed|let's (?:go|stick) (?:with|for)|we(?:'ll| will| are going to|'re going to|'re gonna| are gonna) (?:go|stick) (?:with|for)|(?:so|then) we(?:'ll| will) (?:have|use|keep|take|make|choose|pick)|we go (?:with|for))\b/i;
/** A proposal that becomes a decision when the next speaker assents to it. */
const proposal =
  /\b(?:we should|let's|we could|we can|shall we|how about|why don't we|i suggest|i propose)\b/i;
/** An assent opening a reply ("yeah", "okay, sounds good", "agreed"). */
const assent =
  /^\s*(?:yeah|yes|yep|yup|okay|ok|sure|agreed|i agree|fine|sounds good|good idea|great|definitely|absolutely|exactly|perfect|alright|all right|cool|mm-hmm)\b/i;
/** A reply that objects, or assents only to add a "but". */
const dissent =
  /^\s*(?:no\b|nope|but\b|i don't think|i'm not sure|not really|hmm)|^\W*\w+\W+(?:\w+\W+)?but\b/i;
/** Words that show a clause is loose talk rather than a settled point. */
const vague =
  /\b(?:anyway|like|really|whatever|basically|stuff|kind of|sort of|or something|i guess|i think)\b/i;
const deadline =
  /\b(?:by|before|until|for|on)\s+(?:the\s+)?(?:next\s+(?:meeting|week|month|time)|end of (?:the\s+)?(?:day|week|month|year|meeting)|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|(?:january|february|march|april|june|july|august|september|october|november|december)(?:\s+\d{1,2})?)\b|\b(?:next (?:week|month|meeting|time)|tomorrow|tonight|this (?:week|afternoon|evening)|as soon as possible|asap)\b/i;
const taskMarker = /\b(?:action items?|follow[- ]?up|next steps?|to-?do|homework|assignment|deadline)\b/i;
/** Verbs of work someone can be held to; a task must start with one. */
const workVerbs = wordSet(`send email mail write prepare check draft update fix finish make build review
  test share schedule set organise organize work bring circulate read design research investigate implement
  run record download install upload evaluate compare contact call meet order buy book plan report
  summarise summarize find present take do look collect create distribute post print arrange confirm
  measure sort ask talk try get put give produce transcribe develop deliver provide analyse analyze study
  explore draw add change adapt train rerun submit finalise finalize complete fill introduce announce
  launch publish release hire recruit visit`);
/** Verbs of a choice that make a decision besides verbs of work ("to go with…", "to keep…", "not to…"). */
const choiceVerbs = wordSet('go stick keep have use choose pick not');
/** Verbs of work a group statement ("we need to…") must have to count as a next step. */
const firmVerbs = wordSet(`send email mail write prepare check draft fix finish review test share schedule
  book order buy contact call circulate investigate implement update evaluate record install train present
  submit complete publish organise organize arrange confirm`);
/** Talk about running the meeting itself ("let's finish this meeting"). */
const aboutTheMeeting =
  /\b(?:finish|end|close|wrap|start|stop|adjourn|begin)\w*\b.*\b(?:meeting|call|session)\b/i;
/** A sentence that broke off or is too full of fillers to hold a decision or a task. */
const broken = (s: SpokenSentence): boolean => !endsSentence(s.text) || tooManyFillers(s);
const tooManyFillers = (s: SpokenSentence, share = 0.12): boolean => fillerCount(s.text) / s.words > share;
/** "take a look", "look into", "talk to Dan": these verbs make a task only with such a complement. */
const needsComplement: Record<string, RegExp> = {
  look: /^look (?:into|at|for|up|over|through)\b/,
  take: /^take (?:care|notes|minutes|a look|charge|over|the lead|responsibility)\b/,
  talk: /^talk (?:to|with)\b/,
  ask: /^ask\s+(?!you\b|yourself\b|ourselves\b|ourself\b|themselves\b)\w+/,
  do: /^do (?:the|a|an) (?!\w+'|they|it|this|that)\w{3,}/,
  get: /^get (?:in touch|back to|hold of|it done|that done|this done)\b/,
  put: /^put (?:together|up|in|out)\b/,
  give: /^give (?:a|the|an)\s+(?:presentation|talk|demo|update|report)\b/,
  try: /^try (?:to|out)\b/,
  share:
    /^share (?!(?:my|their|your|our|his|her|some) (?:opinion|thoughts?|views?|story|stories|experience))/,
  make: /^make (?:a|the|sure|some|an)\b/,
  set: /^set up\b/,
  work: /^work on\b/,
  find: /^find out\b/,
};
const subjectModal =
  /(?:^|[,;]\s*|\b(?:and|so|then|but|now|okay|yes|yeah)\s+)(I|we|you)(?:'ll| will| shall| am going to|'m going to|'m gonna| are going to|'re going to|'re gonna| need to| have to| must| can| should)\s+(?:(?:also|just|then|all|definitely|now|first|still|quickly)\s+)*/i;
const request = /\b(?:can|could|would|will) you\s+(?:please\s+)?(?:also\s+)?(?:just\s+)?/i;
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Finds the participant a sentence names: the full label, or the first word of a label of several words. */
function participantMatcher(
  participants: readonly string[],
): (text: string, except: string) => string | null {
  const patterns = participants.map((p) => {
    const first = p.split(/\s+/)[0]!;
    const forms = [p, ...(p.includes(' ') && /^[A-Z][a-z]{2,}$/.test(first) ? [first] : [])];
    return { p, re: new RegExp(`(?:^|[^\\w])(?:${forms.map(escapeRegExp).join('|')})(?:[^\\w]|$)`, 'i') };
  });
  return (text, except) => patterns.find(({ p, re }) => p !== except && re.test(text))?.p ?? null;
}

/** The next turn by someone else, if it assents (back-channels of the same speaker in between are skipped). */
function assentedBy(turns: readonly Turn[], turn: number, speaker: string): string | null {
  for (let i = turn + 1; i < Math.min(turns.length, turn + 4); i++) {
    const t = turns[i]!;
    const text = turnText(t);
    if (t.speaker === speaker) {
      if (isAcknowledgement(text)) continue;
      return null;
    }
    return !dissent.test(text) && assent.test(text) ? t.speaker : null;
  }
  return null;
}

/** The first clause after a modal, tidied; null if it dangles or is too short or long to be a task. */
function firstClause(text: string, maxWords: number): string | null {
  const cut = text
    .split(
      /\s*[,;:—–]\s*|[.!?]\s+|\s+(?:because|cause|'cause|cos|but|so that|which|although|though|whereas|as long as|and then)\s+/i,
    )[0]!
    .replace(/[.!?]+$/, '')
    .replace(/\s+(?:then|now|okay|ok|yeah|right|as well|too|again|anyway)$/i, '')
    .trim();
  const ws = words(cut);
  if (ws.length < 2 || ws.length > maxWords) return null;
  const dangling =
    /\b(?:the|a|an|to|of|and|or|with|for|that|this|in|on|at|is|are|be|some|my|our|your|their)$/i;
  // A task for "you" is no one's in a summary.
  return dangling.test(cut) || /\b(?:you|your|yourself)\b/i.test(cut) ? null : cut;
}

/**
 * Decisions: explicit ones ("we decided to…"), then proposals closing a turn the next speaker assented to; each as
 * the clause after "decided"; at most `limit`, explicit and later ones first (meetings settle towards their end).
 */
export function findDecisions(
  turns: readonly Turn[],
  sentences: readonly SpokenSentence[],
  limit: number,
): Decision[] {
  const found: (Decision & { score: number })[] = [];
  const seen: Set<string>[] = [];
  sentences.forEach((s, i) => {
    if (s.words < 5 || s.words > 40 || questionKind(s.text) === 'question') return;
    const clause = cleanSpoken(s.text);
    if (notSettled.test(clause) || aboutTheMeeting.test(clause)) return;
    const explicit = settled.test(clause);
    // A proposal must be a whole sentence; "we decided to use a kinetic charger," may run on into the next.
    if (explicit ? tooManyFillers(s, 0.25) : broken(s)) return;
    const closesTurn = sentences[i + 1]?.turn !== s.turn;
    if (!explicit && !(closesTurn && proposal.test(clause) && assentedBy(turns, s.turn, s.speaker))) return;
    const m =
      /\b(?:we|everyone|everybody)(?:'ve| have)? (?:decided|agreed) (to|on|that)\s+(.+)$/i.exec(clause) ??
      /\b(?:let's|we(?:'ll| will| should| could| can| are going to|'re going to|'re gonna| are gonna| need to| have to| must| go))\s+()(.+)$/i.exec(
        clause,
      );
    if (!m?.[2]) return;
    // "What we decided to do is have two versions" → "to have two versions".
    const said = m[2]
      .replace(/^(?:just|also|all|then|definitely)\s+/i, '')
      .replace(/^do\s+(?:also\s+)?is\s+/i, '');
    const rest = firstClause(said, 18);
    // "colours or this shape": alternatives still open.
    if (!rest || contentStems(rest).length < 2 || vague.test(rest) || /\bor\b/i.test(rest)) return;
    const link = m[1] === 'that' || m[1] === 'on' ? `${m[1]} ` : 'to ';
    if (link === 'that ' && !hasVerbForm(rest)) return;
    const verb = words(rest)[0]!;
    if (link === 'to ' && !workVerbs.has(verb) && !choiceVerbs.has(verb)) return;
    const stems = new Set(contentStems(rest));
    if (seen.some((x) => overlap(x, stems) > 0.5)) return;
    seen.push(stems);
    found.push({
      text: `${link}${thirdPerson(rest.replace(/^(?:go|goes)\s+(with|for)\b/i, 'go $1'))}`,
      sentence: i,
      score: (explicit ? 2 : 1) + i / sentences.length,
    });
  });
  return pickInOrder(found, limit);
}

/**
 * Next steps with owners (see `assignment`), the task starting with a verb of work, in a statement of 5-40 words;
 * ranked by an owner in person, a deadline, a task marker, a later moment; at most `limit`, in transcript order.
 */
export function findActionItems(
  turns: readonly Turn[],
  sentences: readonly SpokenSentence[],
  limit: number,
): ActionItem[] {
  const named = participantMatcher([...new Set(sentences.map((s) => s.speaker))]);
  const found: (ActionItem & { score: number })[] = [];
  const seen: { owner: string | null; stems: Set<string> }[] = [];
  sentences.forEach((s, i) => {
    if (s.words < 5 || s.words > 40 || broken(s)) return;
    const clause = cleanSpoken(s.text);
    if (
      notCommitted.test(clause) ||
      aboutTheMeeting.test(clause) ||
      /^(?:when|as soon as|once)\b/i.test(clause)
    )
      return;
    const given = assignment(clause, s, turns, named);
    if (!given) return;
    const { owner, rest } = given;
    const task = firstClause(rest, 18);
    if (!task) return;
    const verb = words(task)[0]!;
    const complement = needsComplement[verb];
    if (!workVerbs.has(verb) || complement?.test(task.toLowerCase()) === false) return;
    if (contentStems(task).length < 2) return;
    const due = deadline.exec(task)?.[0] ?? null;
    const marked = taskMarker.test(s.text);
    // "We need to…" is mostly discussion; it is a next step with a deadline, a marker or a verb of real work.
    if (owner === null && !due && !marked && !firmVerbs.has(verb)) return;
    const stems = new Set(contentStems(task));
    if (seen.some((x) => x.owner === owner && overlap(x.stems, stems) > 0.5)) return;
    seen.push({ owner, stems });
    found.push({
      owner,
      speaker: s.speaker,
      task: thirdPerson(task),
      due,
      sentence: i,
      score: (owner === null ? 0 : 1) + (due ? 1 : 0) + (marked ? 1 : 0) + i / sentences.length,
    });
  });
  return pickInOrder(found, limit);
}

/**
 * Who a sentence gives a task to, and the words of the task: "I'll…" (the speaker), "we need to…" (the group:
 * owner null), "you'll…" or "could you…?" (the participant named, else the one who assents next), "Dana will…".
 */
function assignment(
  clause: string,
  s: SpokenSentence,
  turns: readonly Turn[],
  named: (text: string, except: string) => string | null,
): { owner: string | null; rest: string } | null {
  if (questionKind(s.text) === 'question') {
    const req = request.exec(clause);
    const answerer = req ? assentedBy(turns, s.turn, s.speaker) : null;
    if (!req || !answerer) return null;
    return { owner: named(clause, s.speaker) ?? answerer, rest: clause.slice(req.index + req[0].length) };
  }
  const addressee = named(clause, s.speaker);
  const m = subjectModal.exec(clause);
  if (m) {
    const who = m[1]!.toLowerCase();
    const owner =
      who === 'i' ? s.speaker : who === 'we' ? null : (addressee ?? assentedBy(turns, s.turn, s.speaker));
    return owner === undefined ? null : { owner, rest: clause.slice(m.index + m[0].length) };
  }
  if (!addressee) return null;
  const third = new RegExp(
    `${escapeRegExp(addressee)}(?:'ll| will| is going to|'s going to|'s gonna)\\s+(.+)$`,
    'i',
  ).exec(clause);
  return third?.[1] ? { owner: addressee, rest: third[1] } : null;
}

/** "Bob will send the notes by Friday."; for the group, "Ann said they would check the costs." */
export function actionText(item: ActionItem, name: (speaker: string) => string): string {
  return item.owner === null
    ? `${name(item.speaker)} said they would ${item.task}`
    : `${name(item.owner)} will ${item.task}`;
}

function pickInOrder<T extends { sentence: number; score: number }>(
  found: T[],
  limit: number,
): Omit<T, 'score'>[] {
  return [...found]
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .sort((a, b) => a.sentence - b.sentence)
    .map(({ score: _score, ...rest }) => rest);
}

/** Shared content terms relative to the smaller set: near 1 when one task restates the other. */
const overlap = (a: Set<string>, b: Set<string>): number =>
  a.size && b.size ? sharedCount(a, b) / Math.min(a.size, b.size) : 0;

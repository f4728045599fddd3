// The local engine's summary of a meeting: who met about what, how the discussion went, what was decided and who does what next.

import { parseSummaryFormat, type SummaryFormat, type SummarySection } from './summary-format';
import { type InterviewDigestInput, interviewDigest, shortName } from './summary-interview';
import type { ActionItem, Decision } from './summary-outcomes';
import { actionText, findActionItems, findDecisions } from './summary-outcomes';
import { type MeetingPart, meetingParts, participantSentences, type SpokenSentence } from './summary-points';
import { keyNounPhrases, meetingTopics } from './summary-topics';
import { asSentence } from './summary-voice';
import { type Turn, truncateWords, wordCount, wordSet } from './text';

export { parseSummaryFormat, summaryFormatNote } from './summary-format';

/** How many parts of a meeting the summary tells: one to three, so it stays near 100-150 words. */
export function summaryParts(totalWords: number): number {
  if (totalWords < 250) return 1;
  if (totalWords < 1500) return 2;
  return 3;
}

/** Named participants at most; more are counted ("and 12 others"). */
const maxNamed = 5;
const limits = { topics: 4, decisions: 3, actions: 4, parts: undefined as number | undefined };
/** A "detailed" prompt: more parts, decisions and next steps. */
const detailedLimits = { ...limits, parts: 5, decisions: 5, actions: 6 };

/** A sentence of the summary, with its section and how much it matters when a format limit cuts it down. */
export interface Line {
  section: 'overview' | 'part' | 'point' | SummarySection;
  text: string;
  /** Lower is kept first. */
  rank: number;
}

/**
 * The structured summary (README "Summary"): an interview question by question; a meeting as "A, B and C met about
 * X and Y.", then part by part what was discussed, "The group decided to…" and "Next steps: Bob will…".
 */
export function summarise(
  turns: readonly Turn[],
  format: SummaryFormat = parseSummaryFormat(),
  interview?: InterviewDigestInput,
): string {
  const sentences = participantSentences(turns);
  const totalWords = sentences.reduce((n, s) => n + s.words, 0);
  if (totalWords === 0) return 'Nothing was said.';
  if (interview) return render(select(interviewDigest(interview), format), format);

  const display = displayNames(sentences.map((s) => s.speaker));
  const name = (speaker: string) => display.get(speaker) ?? speaker;
  // Two people are "they", more are "the group".
  const group = new Set(display.values()).size === 2 ? 'they' : 'the group';
  const detail = format.detailed ? detailedLimits : limits;

  const topics = meetingTopics(turns, limits.topics);
  if (topics.length < 2) {
    const known = new Set(topics.map((t) => t.key));
    topics.push(...keyNounPhrases(turns, limits.topics - 1 - topics.length, known));
  }
  const decisions = findDecisions(turns, sentences, detail.decisions);
  const actions = findActionItems(turns, sentences, detail.actions);
  const parts = meetingParts(turns, sentences, {
    parts: detail.parts ?? summaryParts(totalWords),
    named: new Set(topics.map((t) => t.key)),
    vocatives: vocatives(display.values()),
    told: new Set([...decisions, ...actions].map((x) => sentences[x.sentence]!)),
  });
  const decided = decisionSentence(decisions, group);
  const asked = new Set(format.sections ?? []);

  const opening = overview(participants(sentences, name), topicNames(topics));
  const lines: Line[] = [
    { section: 'overview', text: opening, rank: 0 },
    ...parts.flatMap((part, i) => partLines(part, i, parts.length, name, group)),
  ];
  if (decided || asked.has('decisions')) {
    lines.push({ section: 'decisions', text: decided ?? 'No explicit decision was recorded.', rank: 1 });
  }
  lines.push(...actionLines(actions, name, format, asked.has('actions')));
  return render(select(lines, format), format);
}

const displayNames = (speakers: readonly string[]) =>
  new Map([...new Set(speakers)].map((s) => [s, shortName(s)]));

/** Words of labels that may address someone mid-sentence ("…the gaps, David, and…"): names, not titles or roles. */
const notNames = wordSet(`The Hon Right Mr Mrs Ms Dr Prof Professor Chair Acting Minister Prime Leader
  Member Grad PhD Postdoc Project Manager Marketing User Interface Industrial Designer Speaker Host Guest`);

function vocatives(labels: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const l of labels)
    for (const w of l.split(/\s+/)) if (/^[A-Z][a-z]{2,}$/.test(w) && !notNames.has(w)) out.add(w);
  return out;
}

/** Participants in order of first speech; with many, the ones who said most, and how many others spoke. */
function participants(sentences: readonly SpokenSentence[], name: (s: string) => string): string[] {
  const words = new Map<string, number>();
  for (const s of sentences) words.set(name(s.speaker), (words.get(name(s.speaker)) ?? 0) + s.words);
  const all = [...words.keys()];
  if (all.length <= maxNamed) return all;
  const top = new Set([...all].sort((a, b) => words.get(b)! - words.get(a)!).slice(0, maxNamed - 1));
  return [...all.filter((p) => top.has(p)), `${all.length - top.size} others`];
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "Ann, Bob and Carol met about the budget and the launch." */
function overview(people: readonly string[], topics: readonly string[]): string {
  const verb = people.length === 1 ? 'spoke' : 'met';
  if (topics.length === 0) return asSentence(`${list(people)} ${verb}`);
  return asSentence(`${list(people)} ${verb} about ${list(topics)}`);
}

const topicNames = (topics: readonly { text: string }[]) => topics.map((t) => t.text);

const openers = ['First', 'Then', 'After that', 'Next', 'Later'];
const opener = (index: number, count: number): string =>
  index === count - 1 ? 'Finally' : (openers[index] ?? 'Then');

function partLines(
  part: MeetingPart,
  index: number,
  count: number,
  name: (s: string) => string,
  group: string,
): Line[] {
  const lines: Line[] = [];
  if (part.topics.length && count > 1) {
    const who = part.share >= 0.6 ? `${name(part.lead)} talked about` : `${group} discussed`;
    lines.push({
      section: 'part',
      text: asSentence(`${opener(index, count)}, ${who} ${list(part.topics)}`),
      rank: 3,
    });
  }
  if (part.point) {
    // Without a topic line the point carries the part's place in the meeting itself.
    const text = lines.length || count === 1 ? part.point : `${opener(index, count)}, ${part.point}`;
    lines.push({ section: 'point', text, rank: 4 });
  }
  return lines;
}

function decisionSentence(decisions: readonly Decision[], group: string): string | null {
  if (decisions.length === 0) return null;
  // "to …" clauses first, then "that …" and "on …" ones (a stable sort keeps each group's order).
  const that = (d: Decision) => Number(d.text.startsWith('that') || d.text.startsWith('on'));
  const clauses = [...decisions].sort((a, b) => that(a) - that(b)).map((d) => d.text);
  return asSentence(`${group} decided ${list(clauses)}`);
}

function actionLines(
  actions: readonly ActionItem[],
  name: (s: string) => string,
  format: SummaryFormat,
  asked: boolean,
): Line[] {
  const stated = actions.map((a) => actionText(a, name));
  if (stated.length === 0) {
    return asked ? [{ section: 'actions', text: 'No next steps were assigned.', rank: 2 }] : [];
  }
  if (format.style === 'prose') {
    return [{ section: 'actions', text: asSentence(`Next steps: ${stated.join('; ')}`), rank: 2 }];
  }
  return stated.map((s, i) => ({
    section: 'actions',
    text: asSentence(`Next step: ${s}`),
    rank: i === 0 ? 2 : 5,
  }));
}

/** The lines a format keeps: only the sections asked for, at most N, within the word limit; in order. */
function select(lines: Line[], format: SummaryFormat): Line[] {
  let kept = lines;
  if (format.only && format.sections) {
    const wanted = new Set<string>(format.sections);
    // The opening sentence names the participants and the topics; the parts tell the topics in turn.
    if (wanted.has('participants') || wanted.has('topics')) wanted.add('overview');
    if (wanted.has('topics')) wanted.add('part');
    kept = lines.filter((l) => wanted.has(l.section));
  }
  const byRank = kept.map((l, i) => ({ l, i })).sort((a, b) => a.l.rank - b.l.rank || a.i - b.i);
  let chosen = format.sentences === undefined ? byRank : byRank.slice(0, format.sentences);
  if (format.maxWords !== undefined) {
    const limit = format.maxWords;
    let used = 0;
    const fits: typeof chosen = [];
    for (const c of chosen) {
      const n = wordCount(c.l.text);
      if (used + n <= limit) {
        fits.push(c);
        used += n;
      } else if (fits.length === 0) {
        fits.push({ ...c, l: { ...c.l, text: truncateWords(c.l.text, limit) } });
        used = limit;
      }
    }
    chosen = fits;
  }
  return chosen.sort((a, b) => a.i - b.i).map((c) => c.l);
}

function render(lines: readonly Line[], format: SummaryFormat): string {
  const texts = lines.map((l) => l.text);
  if (format.style === 'bullets') return texts.map((t) => `- ${t}`).join('\n');
  if (format.style === 'numbered') return texts.map((t, i) => `${i + 1}. ${t}`).join('\n');
  // Prose: the overview, the discussion, then decisions and next steps, each section a line of its own
  // (one paragraph when the prompt asks for one).
  if (format.paragraph) return texts.join(' ');
  const out: string[] = [];
  let previous = '';
  for (const l of lines) {
    const group = l.section === 'part' || l.section === 'point' ? 'discussion' : l.section;
    if (out.length && group === previous) out[out.length - 1] += ` ${l.text}`;
    else out.push(l.text);
    previous = group;
  }
  return out.join('\n');
}

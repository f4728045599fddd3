// The topics a summary names: recurring key phrases that read as nouns ("the remote control", "Switchboard").
import { isContentWord, stem, type Turn, wordSet, words } from './text';
import { extractTopics } from './topics';

/** A topic: its key (lower-case words) and how the summary writes it ("the scroll wheel", "Switchboard"). */
export interface Topic {
  key: string;
  text: string;
}

/** Words before a noun: "the", "a", "our"… */
const determiners = wordSet(`the a an this that these those our your their my its his her some any each
  every no new one which what`);
/** Words that recur in any meeting without being what it was about. */
const notTopics = wordSet(`meeting meetings group member members everyone chair item items issue issues bit
  lot problem problems stuff discussion number numbers piece side part parts role previous additional type
  level area place moment stage other next last`);
const numberWords =
  /^(?:zero|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|first|second|third|fourth|fifth|half|dozen)$/;

/**
 * The topics of a meeting or a part of it: recurring key phrases (`extractTopics`) that read as nouns or names, a
 * word pair said as one ("scroll" + "wheel") merged; as the summary names them ("the remote control", "Switchboard").
 */
export function meetingTopics(
  turns: readonly Turn[],
  limit: number,
  exclude: ReadonlySet<string> = new Set(),
): Topic[] {
  // Hyphenated words stay whole here, so "roll" is not counted inside "roll-out".
  const text = ` ${turns
    .flatMap((t) =>
      t.sentences.map((s) => (s.text.toLowerCase().match(/[a-z0-9]+(?:['-][a-z0-9]+)*/g) ?? []).join(' ')),
    )
    .join(' . ')} `;
  const uses = (phrase: string) => text.split(` ${phrase} `).length - 1;
  const topics: { key: string; proper: boolean }[] = [];
  for (const t of extractTopics(turns, limit + 6)) {
    if (topics.length >= limit) break;
    if (exclude.has(t) || notTopics.has(t) || numberWords.test(t.split(' ')[0]!) || /(?:ly|ed)$/.test(t))
      continue;
    const proper = isName(t, turns);
    if (!proper && !t.includes(' ') && !usedAsNoun(t, text, uses(t))) continue;
    const pair = topics.findIndex(
      (u) => !u.key.includes(' ') && !t.includes(' ') && uses(`${u.key} ${t}`) >= 2,
    );
    if (pair !== -1) topics[pair] = { key: `${topics[pair]!.key} ${t}`, proper: false };
    else if (!topics.some((u) => u.key.split(' ').includes(t))) topics.push({ key: t, proper });
  }
  return topics.map(({ key, proper }) => ({
    key,
    text: proper ? key.replace(/\b\w/g, (c) => c.toUpperCase()) : `the ${key}`,
  }));
}

/** For a meeting too short for recurring topics: the noun phrases after "the", "a"… whose words recur most. */
export function keyNounPhrases(
  turns: readonly Turn[],
  limit: number,
  exclude: ReadonlySet<string> = new Set(),
): Topic[] {
  const counts = new Map<string, number>();
  const phrases = new Map<string, { count: number; first: number }>();
  let order = 0;
  for (const t of turns) {
    for (const s of t.sentences) {
      const ws = words(s.text);
      for (const w of ws) if (isContentWord(w)) counts.set(stem(w), (counts.get(stem(w)) ?? 0) + 1);
      for (let i = 0; i < ws.length; i++) {
        if (!determiners.has(ws[i]!)) continue;
        const run: string[] = [];
        for (let j = i + 1; j < ws.length && run.length < 3 && isContentWord(ws[j]!); j++) run.push(ws[j]!);
        if (run.length === 0 || /(?:ly|ed)$/.test(run.at(-1)!)) continue;
        const key = run.join(' ');
        const p = phrases.get(key) ?? { count: 0, first: order++ };
        p.count++;
        phrases.set(key, p);
      }
    }
  }
  const score = (key: string) => key.split(' ').reduce((n, w) => n + (counts.get(stem(w)) ?? 0), 0);
  const ranked = [...phrases.entries()]
    .filter(([key]) => !exclude.has(key) && !notTopics.has(key))
    .sort((a, b) => score(b[0]) - score(a[0]) || a[1].first - b[1].first);
  const chosen: string[] = [];
  for (const [key] of ranked) {
    if (chosen.length >= limit) break;
    const ws = new Set(key.split(' ').map(stem));
    if (chosen.some((c) => c.split(' ').some((w) => ws.has(stem(w))))) continue;
    if (score(key) < 2) break;
    chosen.push(key);
  }
  return chosen.map((key) => ({ key, text: `the ${key}` }));
}

/** After a determiner and not before a noun ("the remote", not "the small buttons" or "the small one"). */
function usedAsNoun(word: string, text: string, uses: number): boolean {
  let asNoun = 0;
  for (const m of text.matchAll(new RegExp(` (?:${[...determiners].join('|')}) ${word} (\\S+)`, 'g'))) {
    if (!isContentWord(m[1]!) && !/^ones?$/.test(m[1]!)) asNoun++;
  }
  return asNoun > 0 && asNoun * 3 >= uses;
}

/** Mostly capitalised inside sentences: a name ("Switchboard", "Canadians"), shown as such and without "the". */
function isName(phrase: string, turns: readonly Turn[]): boolean {
  // A topic is lower-case letters, digits, apostrophes and spaces: nothing to escape.
  const re = new RegExp(`(?<![\\w'])${phrase}(?![\\w'])`, 'gi');
  let capitalised = 0;
  let seen = 0;
  for (const t of turns) {
    for (const s of t.sentences) {
      for (const m of s.text.matchAll(re)) {
        if (m.index === 0) continue; // a sentence's first word is capitalised anyway
        seen++;
        if (/^[A-Z]/.test(m[0])) capitalised++;
      }
    }
    if (seen >= 20) break;
  }
  return seen > 0 && capitalised * 2 > seen;
}

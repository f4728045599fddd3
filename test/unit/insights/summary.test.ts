// The local engine's structured summary: who met about what, what was decided, who does what next, in the third
// person; and how it honours a summary_format_prompt or says what it could not follow.
import { describe, expect, it } from 'vitest';
import type { Utterance } from '../../../core/bots/transcript';
import {
  parseSummaryFormat,
  summarise,
  summaryFormatNote,
} from '../../../core/engines/rules/insights/summary';
import { unfollowedSummaryInstructions } from '../../../core/engines/rules/insights/summary-format';
import { cleanSpoken, reportedSpeech, withSubject } from '../../../core/engines/rules/insights/summary-voice';
import { buildTurns } from '../../../core/engines/rules/insights/text';
import { syntheticMeeting } from '../../fixtures/insights/synthetic';
import { loadRealTranscripts, toUtterances } from '../../fixtures/insights/transcripts';
import { requires, skipReason } from '../../support/requirements';

function talk(lines: [speaker: string, text: string][], bot?: string): Utterance[] {
  return lines.map(([speaker, text], i) => ({
    speaker,
    participant_id: `p-${speaker}`,
    started_at: new Date(Date.parse('2024-05-06T10:00:00Z') + i * 5000).toISOString(),
    text,
    ...(speaker === bot ? { is_bot: true } : {}),
  }));
}

const summary = (utterances: Utterance[], prompt?: string) =>
  summarise(buildTurns(utterances), parseSummaryFormat(prompt));
const wordsIn = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
/** First person left in a summary means a quote, not a summary. */
const firstPerson = /\b(?:I|I'm|I'll|I've|we|we're|we'll|our|us|my)\b/;

const launch = talk([
  [
    'Ann',
    'Good morning, thanks for joining. Today we need to agree on the launch date and the pricing for the new app.',
  ],
  ['Bob', 'I looked at the beta numbers. The beta had 500 users and the crash rate is below one percent.'],
  ['Carol', 'The marketing campaign is ready, but we need the final price before we print the flyers.'],
  ['Ann', 'Okay. What do you both think about the price?'],
  ['Bob', 'I think we should charge five dollars a month.'],
  ['Carol', 'Yes, that sounds good.'],
  ['Ann', 'Great. So we decided to launch the app on March 3rd at five dollars a month.'],
  ['Ann', 'Bob, can you send the release notes to the support team by Friday?'],
  ['Bob', "Sure, I'll do that."],
  ['Carol', "I'll prepare the press release by next Wednesday."],
  ['Ann', 'Perfect. I will book the venue for the launch event. Thanks everyone.'],
]);

const design = talk([
  ['Dana', 'Welcome back. Today is about the logo colours and the contract with the print shop.'],
  ['Eli', 'The print shop sent two offers. The cheaper offer uses only two colours for the logo.'],
  ['Dana', 'Maybe we should switch to another print shop?'],
  ['Eli', "I'm not sure, their quality has been fine."],
  ['Fay', 'The blue logo tested best with customers, so two colours are enough for us.'],
  ['Dana', "Let's use the blue logo with two colours."],
  ['Eli', 'Yes, agreed.'],
  ['Fay', 'Eli will draft the contract with the print shop by Monday.'],
  ['Eli', 'Fine by me.'],
]);

describe('structured summary', () => {
  it('names the participants and topics, states the decision and each next step with its owner and deadline', () => {
    const s = summary(launch);
    const [first, ...rest] = s.split('\n');
    expect(first).toMatch(/^Ann, Bob and Carol met about the launch date\b/);
    expect(rest).toContain('The group decided to launch the app on March 3rd at five dollars a month.');
    expect(s).toContain('Bob will send the release notes to the support team by Friday');
    expect(s).toContain('Carol will prepare the press release by next Wednesday');
    expect(s).toContain('Ann will book the venue for the launch event');
    expect(s.split('\n').at(-1)).toMatch(/^Next steps: /);
    expect(s).not.toMatch(firstPerson);
  });

  it('takes an assented proposal as a decision, not a doubted one; a named participant owns a task', () => {
    const s = summary(design);
    expect(s).toMatch(/^Dana, Eli and Fay met about /);
    expect(s).toContain('The group decided to use the blue logo with two colours.');
    expect(s).not.toMatch(/decided to switch/);
    expect(s).toContain('Next steps: Eli will draft the contract with the print shop by Monday.');
    expect(s).not.toMatch(firstPerson);
  });

  it('reports what was said in the third person, not as quotes', () => {
    const s = summary(design, 'detailed');
    expect(s).toMatch(/(?:Eli|Fay|Dana) (?:said|suggested|thought) that /);
  });

  it('leaves the bot out, and says when nothing was said', () => {
    const s = summary(
      talk(
        [
          ['Scribe', 'Hello, I am the note taker. I will send the summary after the call.'],
          ...launch.map((u): [string, string] => [u.speaker, u.text]),
        ],
        'Scribe',
      ),
    );
    expect(s).not.toContain('Scribe');
    expect(summary(talk([['Ann', '  ']]))).toBe('Nothing was said.');
  });

  // Its speed is measured by `npm run bench -- insights`, not timed here (a loaded machine is not a slow engine).
  it('is deterministic on a 4-hour meeting (36,000 words)', { timeout: 60_000 }, () => {
    const turns = buildTurns(syntheticMeeting(36_000));
    const a = summarise(turns);
    expect(summarise(turns)).toBe(a);
    const first = a.split('\n')[0]!;
    for (const name of ['Dana Whitfield', 'Priya Raman', 'Marco Bellini', 'Lena Hoffmann'])
      expect(first).toContain(name);
    expect(first).toMatch(/ met about the /);
    expect(a).toMatch(/Next steps: .*(?:will|would) /);
  });
});

describe('summary format prompts', () => {
  it('bullets, numbered lists and a count of items', () => {
    const bullets = summary(launch, 'In bullet points, please').split('\n');
    expect(bullets.length).toBeGreaterThanOrEqual(4);
    for (const line of bullets) expect(line).toMatch(/^- [A-Z]/);
    expect(bullets).toContain('- Next step: Bob will send the release notes to the support team by Friday.');

    const numbered = summary(launch, 'A numbered list of three items').split('\n');
    expect(numbered.map((l) => l.slice(0, 3))).toEqual(['1. ', '2. ', '3. ']);
    // The overview, the decision and the first next step matter most.
    expect(numbered[1]).toMatch(/decided to launch/);
  });

  it('a word limit, one sentence, one paragraph', () => {
    const short = summary(launch, 'Keep it under 35 words.');
    expect(wordsIn(short)).toBeLessThanOrEqual(35);
    expect(short).toContain('decided to launch');

    expect(summary(launch, 'One sentence.')).toMatch(/^Ann, Bob and Carol met about [^\n]+\.$/);
    expect(summary(launch, 'One paragraph')).not.toContain('\n');
  });

  it('only the sections asked for, and says so when one is empty', () => {
    expect(summary(launch, 'Just the action items')).toMatch(/^Next steps: Bob will send/);
    const none = talk([
      ['Gus', 'The weather was lovely at the coast last weekend, with plenty of sunshine.'],
      ['Hal', 'The coast gets crowded in summer, especially near the harbour and the beaches.'],
    ]);
    const s = summary(none, 'Mention decisions and next steps.');
    expect(s).toContain('No explicit decision was recorded.');
    expect(s).toContain('No next steps were assigned.');
  });

  it('reads prompts', () => {
    expect(parseSummaryFormat(undefined)).toEqual({ style: 'prose', speakers: false });
    expect(parseSummaryFormat('5 bullet points')).toEqual({
      style: 'bullets',
      sentences: 5,
      speakers: false,
    });
    expect(parseSummaryFormat('no bullet points, under 80 words')).toMatchObject({
      style: 'prose',
      maxWords: 80,
    });
    expect(parseSummaryFormat('only decisions and next steps')).toMatchObject({
      sections: ['decisions', 'actions'],
      only: true,
    });
    expect(parseSummaryFormat('a detailed summary')).toMatchObject({ detailed: true, sentences: 10 });
  });
});

describe('instructions the local engine does not follow', () => {
  it('lists each with the reason, and nothing for what it honours', () => {
    expect(unfollowedSummaryInstructions(undefined)).toEqual([]);
    expect(
      unfollowedSummaryInstructions(
        'Please summarise the meeting in 3 bullet points, under 60 words, and mention decisions.',
      ),
    ).toEqual([]);
    expect(unfollowedSummaryInstructions('Bullet points in French, in a formal tone')).toEqual([
      '"Bullet points in French" (the local engine writes English only)',
      '"in a formal tone" (the local engine does not change its tone)',
    ]);
    expect(unfollowedSummaryInstructions('Keep it short and make it sparkle like a unicorn')).toEqual([
      '"make it sparkle like a unicorn" (not understood by the local engine)',
    ]);
    expect(summaryFormatNote('in Spanish')).toBe(
      'Summary format not followed: "in Spanish" (the local engine writes English only).',
    );
    expect(summaryFormatNote('bullets')).toBeNull();
  });

  it('still honours the rest of such a prompt', () => {
    const s = summary(launch, 'Bullet points in French');
    for (const line of s.split('\n')) expect(line).toMatch(/^- /);
  });
});

describe('spoken sentences made written', () => {
  it('drops hesitations, stutters, false starts, openers and tags', () => {
    expect(cleanSpoken('Um, yeah, so I I think we should we should use the the rubber case, right?')).toBe(
      'we should use the rubber case',
    );
    expect(cleanSpoken('We will s We use titanium.')).toBe('We use titanium.');
    expect(cleanSpoken('the user interf interface, you know, talks to the chip.')).toBe(
      'the user interface talks to the chip.',
    );
  });

  it('puts first person into third', () => {
    expect(withSubject("I'll send it to Dan", 'Bob')).toBe('Bob will send it to Dan');
    expect(withSubject('I just want our logo bigger', 'Ann')).toBe('Ann just wants their logo bigger');
    expect(reportedSpeech('I think we should go with the yellow case.', 'Marketing')).toBe(
      'Marketing suggested that they should go with the yellow case.',
    );
    expect(reportedSpeech('Uh the battery lasts two years.', 'Industrial Designer')).toBe(
      'Industrial Designer said that the battery lasts two years.',
    );
  });
});

describe('an answer in the third person, as a reader would write it', () => {
  it('keeps titles and company endings, "am" and a name after "at The"', () => {
    expect(cleanSpoken("The last four at St. Mary's Hospital, before that Dr. Patel's clinic.")).toBe(
      "The last four at St. Mary's Hospital, before that Dr. Patel's clinic.",
    );
    expect(cleanSpoken('At Hargreaves & Co. the close took ten days.')).toBe(
      'At Hargreaves & Co. the close took ten days.',
    );
    expect(cleanSpoken('so I am free from 10 p.m.')).toBe('I am free from 10 p.m.');
    expect(cleanSpoken('I was sous chef at The Ivy in London.')).toBe(
      'I was sous chef at The Ivy in London.',
    );
  });

  it('makes the verb agree with the name, and leaves past forms alone', () => {
    expect(withSubject('I sat with him for an hour', 'Maria')).toBe('Maria sat with him for an hour');
    expect(withSubject("I'm available 36 hours a week, and I'm happy to work nights.", 'Maria')).toBe(
      'Maria is available 36 hours a week and is happy to work nights.',
    );
    expect(withSubject('I cost every dish each week and use the beef trim', 'Luca')).toBe(
      'Luca costs every dish each week and uses the beef trim',
    );
    expect(withSubject('I set up phonics sessions every morning and met his mum', 'Aisha')).toBe(
      'Aisha set up phonics sessions every morning and met his mum',
    );
    expect(withSubject('I page the lead and roll back first, then debug.', 'Wei')).toBe(
      'Wei pages the lead and rolls back first, then debugs.',
    );
    expect(withSubject('I review the top ten with sales and support each month', 'Grace')).toBe(
      'Grace reviews the top ten with sales and support each month',
    );
    // Another subject between: the second "I" is said again.
    expect(withSubject('I sat with him and he slept, and I went home', 'Maria')).toBe(
      'Maria sat with him and he slept, and they went home',
    );
  });

  it('takes an "I" after an opening phrase as the subject, not after a clause or a group', () => {
    const within = { within: true };
    expect(withSubject('Before that I worked nights in Leeds.', 'Maria', within)).toBe(
      'Before that Maria worked nights in Leeds.',
    );
    expect(withSubject('For three years I was a picker', 'Dariusz', within)).toBe(
      'For three years Dariusz was a picker',
    );
    expect(withSubject('My kids are at school, so I am free', 'Dariusz', within)).toBeNull();
    expect(withSubject('We prep everything, and I call every ticket', 'Luca', within)).toBeNull();
    expect(withSubject('Sam and I built it', 'Ann', within)).toBeNull();
    expect(withSubject('Before that I worked nights.', 'Maria')).toBeNull();
  });

  it('reports a sentence without a verb as nothing, keeps a name\'s capital after "said that"', () => {
    expect(
      reportedSpeech('About 140 units an hour with a handheld scanner.', 'Dariusz', new Set(), {
        clausesOnly: true,
      }),
    ).toBeNull();
    expect(
      reportedSpeech('Monzo handles 2,000 requests a second.', 'Wei', new Set(), {
        names: new Set(['Monzo']),
      }),
    ).toBe('Wei said that Monzo handles 2,000 requests a second.');
  });
});

const realMeeting = loadRealTranscripts().find((t) => t.name === 'meeting_ami_ES2004d');

const noRealMeeting = skipReason(
  requires.other(
    '../shared data',
    realMeeting
      ? undefined
      : 'the AMI ES2004d transcript of ../shared/data/transcripts is not on this machine',
    false,
  ),
);

describe.skipIf(noRealMeeting)('structured summary of a real meeting (AMI ES2004d, ../shared)', () => {
  it('names the four roles, a decision and a next step with its owner, in the third person', () => {
    const speakers = [...new Set(realMeeting!.turns.map((t) => t.speaker))];
    const s = summary(toUtterances(realMeeting!.turns));
    const [first] = s.split('\n');
    for (const role of speakers) expect(first).toContain(role);
    expect(first).toMatch(/ met about the /);
    expect(s).toMatch(/^The group decided to use a kinetic charger/m);
    const next = /^Next steps: (.+)$/m.exec(s)?.[1] ?? '';
    expect(next.split('; ').some((step) => speakers.some((p) => step.startsWith(`${p} will `)))).toBe(true);
    expect(s).not.toMatch(firstPerson);
    expect(wordsIn(s)).toBeLessThan(250);
  });
});

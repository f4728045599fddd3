// Q&A pairs: the question alone, never small talk as an answer, a re-asked question once, a follow-up's answer
// appended, unanswered questions kept (empty answer) in `exchanges`; and over interviews the local engine led.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Utterance } from '../../../core/bots/transcript';
import { agendaOf } from '../../../core/engines/rules/conversation/agenda';
import { LocalConversationEngine } from '../../../core/engines/rules/conversation/local-engine';
import { extractQaPairs, isFollowUp } from '../../../core/engines/rules/insights/qa-pairs';
import { buildTurns } from '../../../core/engines/rules/insights/text';
import { sentences } from '../../../core/ports/conversation-engine';

const bot = 'Iris';

function talk(lines: [speaker: string, text: string][]): Utterance[] {
  const start = Date.parse('2026-01-05T10:00:00Z');
  return lines.map(([speaker, text], i) => ({
    speaker,
    participant_id: speaker,
    started_at: new Date(start + i * 3000).toISOString(),
    text,
    ...(speaker === bot ? { is_bot: true } : {}),
  }));
}

const extract = (lines: [string, string][]) => extractQaPairs(buildTurns(talk(lines), bot));
const pairsOf = (lines: [string, string][]) => extract(lines).pairs.map((p) => [p.question, p.answer]);

describe('Q&A pairs: the question alone', () => {
  it('drops lead-ins and acknowledgements before a question, keeps real context', () => {
    expect(
      pairsOf([
        [
          bot,
          'Hello, I am Iris. I have 2 questions for you. Let me start with my first question. What was your last project?',
        ],
        ['Casey', 'A billing service in Go for 3,000 merchants.'],
        [bot, 'Thank you. What is the hardest bug you fixed?'],
        ['Casey', 'A race between two cache writers that lost updates.'],
        [bot, 'So you work on payments now. Is that correct?'],
        ['Casey', 'Yes.'],
        [bot, 'That is helpful, thank you. Can you describe your biggest failure?'],
        ['Casey', 'I shipped a migration without a rollback plan and lost a day of data.'],
      ]),
    ).toEqual([
      ['What was your last project?', 'A billing service in Go for 3,000 merchants.'],
      ['What is the hardest bug you fixed?', 'A race between two cache writers that lost updates.'],
      ['So you work on payments now. Is that correct?', 'Yes.'],
      [
        'Can you describe your biggest failure?',
        'I shipped a migration without a rollback plan and lost a day of data.',
      ],
    ]);
  });
});

describe('Q&A pairs: small talk is never an answer', () => {
  it('skips greetings, repeat requests, back-channels and apologies; the re-asked question is one pair', () => {
    const qa = extract([
      [bot, 'Hello everyone. I have one question for you. Could you tell me about your last project?'],
      ['Casey', 'Hi, happy to be here!'],
      [bot, 'Nice to meet you. What can you tell me about your last project?'],
      ['Casey', 'Sorry, could you repeat that?'],
      [bot, 'Sure. Could you tell me about your last project?'],
      ['Casey', 'Sure.'],
      ['Casey', 'It was a billing service in Go for 3,000 merchants.'],
      [bot, 'Thank you. That was my last question. Thank you very much for your time!'],
    ]);
    expect(qa.pairs.map((p) => [p.question, p.answer, p.askedBy, p.answeredBy])).toEqual([
      [
        'Could you tell me about your last project?',
        'It was a billing service in Go for 3,000 merchants.',
        bot,
        'Casey',
      ],
    ]);
    // "could you repeat that?" is not a question put to the bot, nor is the re-asked question counted twice.
    expect(qa.asked.map((q) => q.text)).toEqual(['Could you tell me about your last project?']);
  });

  it('"How are you?", "Are you still there?" and "Sorry to cut in!" are neither questions nor answers', () => {
    expect(
      pairsOf([
        [bot, 'Could you walk me through how you test code?'],
        ['Casey', 'Sorry to cut in!'],
        [bot, 'Let me finish my question. Could you walk me through how you test code?'],
        ['Casey', 'How are you?'],
        [bot, "I'm doing well, thank you. Could you explain how you test code?"],
        ['Casey', 'Mostly unit tests, plus contract tests for every external API.'],
        [bot, 'Are you still there?'],
        ['Casey', 'Yes, sorry.'],
      ]),
    ).toEqual([
      [
        'Could you walk me through how you test code?',
        'Mostly unit tests, plus contract tests for every external API.',
      ],
    ]);
  });
});

describe('Q&A pairs: an answer given over the question', () => {
  /** The bot's question, then the answer: early (started 1.5 s into the question, cut off "…"), on time, or late. */
  const interview = (timing: 'early' | 'on-time' | 'late') => {
    const at = (s: number) => new Date(Date.parse('2026-01-05T10:00:00Z') + s * 1000).toISOString();
    const u = (speaker: string, text: string, s: number): Utterance => ({
      speaker,
      participant_id: speaker,
      started_at: at(s),
      text,
      ...(speaker === bot ? { is_bot: true } : {}),
    });
    const gap = { early: 1.5, 'on-time': 5, late: 20 }[timing];
    const q1 = 'How many hours a week are you available?';
    const q2 = 'Which wards have you worked on?';
    const cut = (q: string) => (timing === 'early' ? q.replace(/\?$/, '…') : q);
    const lines = [
      u(bot, cut(q1), 0),
      u('Maria', "I'm available 36 hours a week.", gap),
      u(bot, 'Thank you.', gap + 5),
      u(bot, cut(q2), gap + 7),
      ...(timing === 'late' ? [u('Maria', 'Hmm, let me think.', gap + 20)] : []),
      u(
        'Maria',
        "Cardiology and the acute medical unit at St. Mary's.",
        gap + 7 + gap + (timing === 'late' ? 15 : 0),
      ),
      u(bot, 'Thank you. That was my last question.', gap + 40),
    ];
    return extractQaPairs(
      buildTurns(
        lines.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at)),
        bot,
      ),
    );
  };

  it('pairs it with the question it answers, counted once and answered, with no "Let me finish my question."', () => {
    const expected = [
      ['How many hours a week are you available?', "I'm available 36 hours a week."],
      ['Which wards have you worked on?', "Cardiology and the acute medical unit at St. Mary's."],
    ];
    for (const timing of ['early', 'on-time', 'late'] as const) {
      const qa = interview(timing);
      expect(
        qa.pairs.map((p) => [p.question, p.answer]),
        timing,
      ).toEqual(expected);
      expect(qa.asked, timing).toHaveLength(2);
    }
  });
});

describe('Q&A pairs: follow-ups and unanswered questions', () => {
  it('appends the answer given after a follow-up', () => {
    expect(isFollowUp('Could you give me a concrete example?')).toBe(true);
    expect(isFollowUp('Could you give me an example of a time you disagreed with your manager?')).toBe(false);
    expect(
      pairsOf([
        [bot, 'What can you tell me about a hard bug you fixed?'],
        ['Casey', 'A race condition.'],
        [bot, 'Could you say a bit more about that?'],
        ['Casey', 'Two writers updated one cache key; versioned writes fixed it.'],
        [bot, 'Got it, thanks. Could you explain how you test code?'],
        ['Casey', 'Unit tests first, then integration tests against a local stack.'],
      ]),
    ).toEqual([
      [
        'What can you tell me about a hard bug you fixed?',
        'A race condition. Two writers updated one cache key; versioned writes fixed it.',
      ],
      [
        'Could you explain how you test code?',
        'Unit tests first, then integration tests against a local stack.',
      ],
    ]);
  });

  it('keeps a question that got no answer in `exchanges`, with an empty answer, and out of `pairs`', () => {
    const qa = extract([
      [bot, 'Could you tell me about your last project?'],
      ['Casey', 'Mm-hmm.'],
      [bot, 'What can you tell me about your notice period?'],
      ['Casey', 'Three months, but it can be shortened to one.'],
    ]);
    expect(qa.pairs.map((p) => p.question)).toEqual(['What can you tell me about your notice period?']);
    expect(qa.exchanges.map((p) => [p.question, p.answer, p.answeredBy, p.answerWords])).toEqual([
      ['Could you tell me about your last project?', '', '', 0],
      [
        'What can you tell me about your notice period?',
        'Three months, but it can be shortened to one.',
        'Casey',
        9,
      ],
    ]);
    expect(qa.asked.map((q) => q.text)).toEqual(qa.exchanges.map((p) => p.question));
  });
});

const smallTalk = [
  'Hi!',
  'What are the next steps?',
  'Is the role remote?',
  'Um',
  'Sorry, could you repeat that?',
  'Mm-hmm.',
  'How are you?',
  'Sure.',
  'Okay.',
  'Hold on, let me think.',
];
const answers = [
  'I rebuilt our billing pipeline in TypeScript and cut invoice errors by 40 percent.',
  'We ran both systems in parallel for three weeks before switching over.',
  'Mostly unit tests, plus contract tests for every external API we call.',
  'I mentored two junior engineers through their first on-call rotation.',
  'Our team moved the reporting jobs from cron to a queue with retries.',
];

/** Plays an interview with the local engine: for each topic, small talk first, then (maybe a thin answer and) the answer. */
async function interview(prompt: string, script: { before: string[]; thin: boolean; answer: string }[]) {
  const engine = new LocalConversationEngine();
  const transcript: Utterance[] = [];
  let t = Date.parse('2026-01-05T10:00:00Z');
  const add = (text: string, isBot: boolean) => {
    t += 2000;
    transcript.push({
      speaker: isBot ? bot : 'Casey',
      participant_id: isBot ? 'bot' : 'casey',
      started_at: new Date(t).toISOString(),
      text,
      ...(isBot ? { is_bot: true } : {}),
    });
  };
  const ctx = () => ({ botName: bot, prompt, transcript });
  const speak = async (it: AsyncIterable<string>) => {
    for await (const s of sentences(it)) add(s, true);
  };
  await speak(engine.greet(ctx()));
  for (const step of script) {
    for (const line of [...step.before, ...(step.thin ? ['A payments API.'] : []), step.answer]) {
      add(line, false);
      await speak(engine.reply(ctx()));
    }
  }
  return transcript;
}

describe('Q&A pairs of interviews the local engine led', () => {
  const prompts = [
    'You are interviewing a candidate for a backend engineer role. Ask about their last project, a hard bug they fixed, and how they test code.',
    'Find out what they know about Kubernetes, whether they have been on call, and why they want to leave their current job.',
    'Screen them on SQL, Python and communication skills.',
  ];

  it('one pair per topic, its question as asked first, its answer the substantive reply (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...prompts),
        fc.array(
          fc.record({
            before: fc.array(fc.constantFrom(...smallTalk), { maxLength: 3 }),
            thin: fc.boolean(),
            answer: fc.constantFrom(...answers),
          }),
          { minLength: 3, maxLength: 3 },
        ),
        async (prompt, script) => {
          const transcript = await interview(prompt, script);
          // The candidate's own questions ("Is the role remote?") are pairs too, answered by the bot.
          const byBot = extractQaPairs(buildTurns(transcript, bot)).pairs.filter((p) => p.askedByBot);
          expect(byBot.map((p) => p.question)).toEqual(agendaOf(prompt).topics.map((t) => t.question));
          expect(byBot.map((p) => p.answer)).toEqual(
            script.map((s) => (s.thin ? `A payments API. ${s.answer}` : s.answer)),
          );
          for (const p of byBot) {
            expect(p.answeredBy).toBe('Casey');
            for (const s of smallTalk) expect(p.answer).not.toContain(s);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('Q&A pairs: a question asked back', () => {
  it('is not answered by the bot praising and moving on (a flake of the persona test under load)', () => {
    const lines: [string, string][] = [
      [bot, 'How do you test your code?'],
      ['Sam', 'It depends on the project, really. What does your team do for testing?'],
      [bot, 'That is helpful, thank you.'],
      [bot, 'Thank you very much for your time!'],
    ];
    expect(pairsOf(lines)).toEqual([]);
    // Spoken in one turn with the next question, the praise is a lead-in: the dodge is the only answer there is.
    expect(
      pairsOf([
        [bot, 'What was the hardest bug you fixed?'],
        ['Sam', 'Hard to say. What is the hardest bug your team has had?'],
        [bot, 'That is helpful, thank you. How do you test your code?'],
      ]),
    ).toEqual([['What was the hardest bug you fixed?', 'Hard to say.']]);
  });
});

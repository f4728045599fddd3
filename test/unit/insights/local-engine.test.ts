import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Utterance } from '../../../core/bots/transcript';
import { weightsFor } from '../../../core/engines/rules/insights/evaluation';
import { analyseLocally, LocalInsightsEngine } from '../../../core/engines/rules/insights/local-engine';
import { parseSummaryFormat, summaryParts } from '../../../core/engines/rules/insights/summary';
import { InsightsError, validatedResult } from '../../../core/ports/insights-engine';
import { insightsSchema, qaPairSchema } from '../../../core/schemas/results';
import { interview } from '../../fixtures/insights/fixtures';
import { countWords, syntheticMeeting } from '../../fixtures/insights/synthetic';
import { summarySentences } from './helpers';

const engine = new LocalInsightsEngine();

function talk(
  lines: [speaker: string, text: string][],
  start = Date.parse('2024-05-06T10:00:00Z'),
): Utterance[] {
  return lines.map(([speaker, text], i) => ({
    speaker,
    participant_id: `p-${speaker}`,
    started_at: new Date(start + i * 5000).toISOString(),
    text,
  }));
}

describe('local insights engine: Q&A pairs', () => {
  it('pairs each bot question of the interview with the candidate answer, with who and when', async () => {
    const utterances = interview('good');
    const { qaPairs } = await engine.analyse({ utterances, botName: 'Ava', processInsights: false });
    const byBot = qaPairs.filter((p) => p.asked_by === 'Ava');
    expect(byBot.map((p) => p.question)).toEqual([
      "Let's start: can you tell me about a project you are proud of?",
      'How did you handle disagreements within the team?',
      'What would you do differently if you started that project again?',
      'Why do you want to join our company?',
      'How do you keep your technical skills up to date?',
    ]);
    for (const p of byBot) {
      expect(p.answered_by).toBe('Jordan Lee');
      expect(utterances.some((u) => u.started_at === p.asked_at && u.text.includes(p.question))).toBe(true);
    }
    expect(byBot[0]!.answer).toMatch(/^Sure\. Last year I led the migration/);
    // The candidate's own question is answered by the bot.
    expect(qaPairs.at(-1)).toMatchObject({ asked_by: 'Jordan Lee', answered_by: 'Ava' });
  });

  it('skips question tags, echoes and back-channel questions', async () => {
    const { qaPairs } = await engine.analyse({
      processInsights: false,
      utterances: talk([
        ['A', "That's a pretty cool setup, right?"],
        ['B', 'Yeah, we built it last year.'],
        ['A', 'Was it?'],
        ['B', 'It was.'],
        ['A', 'It turned into an opportunity for the whole team, didn’t it?'],
        ['B', 'It did, we hired two people because of it.'],
        ['A', 'You know?'],
        ['B', 'Sure.'],
        ['A', 'How did you pick the two people you hired?'],
        ['B', 'We ran a take-home exercise and a pairing session with each finalist.'],
      ]),
    });
    expect(qaPairs.map((p) => p.question)).toEqual(['How did you pick the two people you hired?']);
  });

  it('recognises questions without a question mark, and skips quoted and rhetorical ones', async () => {
    const { qaPairs } = await engine.analyse({
      processInsights: false,
      utterances: talk([
        ['Host', 'So tell me about the launch of the new billing service'],
        ['Guest', 'We launched it in March for 300 customers and doubled that by June.'],
        ['Host', 'I asked myself "why does this keep failing?" many times.'],
        ['Guest', 'That happens to everyone.'],
        [
          'Host',
          'Why do teams rewrite systems? I think they mostly do it because the old system is hard to change, the people who wrote it have left, and nobody wants to read the old code anymore, so a rewrite looks cheaper than it is.',
        ],
        ['Guest', 'Absolutely agree with that point about rewrites.'],
      ]),
    });
    expect(qaPairs).toHaveLength(1);
    expect(qaPairs[0]).toMatchObject({
      question: 'So tell me about the launch of the new billing service',
      answered_by: 'Guest',
    });
  });

  it('merges the answerer’s turns across back-channels and gives a short question its context', async () => {
    const { qaPairs } = await engine.analyse({
      processInsights: false,
      utterances: talk([
        ['Host', 'Now you lead the data team at Acme. Is that correct?'],
        ['Guest', 'Yes.'],
        ['Host', 'And what does the data team work on these days?'],
        ['Guest', 'Mostly forecasting for the supply chain'],
        ['Host', 'Mm-hmm.'],
        ['Guest', 'and a new pricing model that we will ship in the autumn.'],
        ['Host', 'Nice.'],
        ['Guest', 'We also run the experimentation platform for the product teams.'],
        ['Host', 'Who uses that platform the most?'],
        ['Guest', 'The growth team, by far.'],
      ]),
    });
    expect(qaPairs.map((p) => [p.question, p.answer])).toEqual([
      ['Now you lead the data team at Acme. Is that correct?', 'Yes.'],
      [
        'And what does the data team work on these days?',
        'Mostly forecasting for the supply chain and a new pricing model that we will ship in the autumn. We also run the experimentation platform for the product teams.',
      ],
      ['Who uses that platform the most?', 'The growth team, by far.'],
    ]);
  });

  it('skips an acknowledgement when a real answer follows, and a wh-question answered only by "yeah"', async () => {
    const { qaPairs } = await engine.analyse({
      processInsights: false,
      utterances: talk([
        ['A', 'What should the budget for the pilot be?'],
        ['B', 'Yeah.'],
        ['C', 'I would cap it at twenty thousand euros for the first quarter.'],
        ['A', 'What do you think about the vendor shortlist?'],
        ['B', 'Okay.'],
        [
          'A',
          'Right, moving on to the hiring plan for the next quarter then, which is the bigger item today.',
        ],
      ]),
    });
    expect(qaPairs).toEqual([
      expect.objectContaining({
        question: 'What should the budget for the pilot be?',
        answer: 'I would cap it at twenty thousand euros for the first quarter.',
        answered_by: 'C',
      }),
    ]);
  });

  it('caps long answers at a sentence end', async () => {
    const long = Array.from(
      { length: 40 },
      (_, i) => `This is sentence number ${i + 1} of a long answer.`,
    ).join(' ');
    const { qaPairs } = await new LocalInsightsEngine({ maxAnswerWords: 50 }).analyse({
      processInsights: false,
      utterances: talk([
        ['A', 'Could you describe the whole architecture of the system?'],
        ['B', long],
      ]),
    });
    const answer = qaPairs[0]!.answer;
    expect(answer.split(/\s+/).length).toBeLessThanOrEqual(50);
    expect(answer).toMatch(/long answer\.$/);
  });
});

describe('local insights engine: insights', () => {
  it('scores a good interview well above a poor one, each strength and weakness quoting an answer', async () => {
    const good = await engine.analyse({
      utterances: interview('good'),
      botName: 'Ava',
      processInsights: true,
    });
    const poor = await engine.analyse({
      utterances: interview('poor'),
      botName: 'Ava',
      processInsights: true,
    });
    expect(good.insights!.score_basis).toBe('interview');
    expect(good.insights!.overall_score).toBeGreaterThanOrEqual(65);
    expect(poor.insights!.overall_score).toBeLessThanOrEqual(30);
    expect(good.insights!.overall_score - poor.insights!.overall_score).toBeGreaterThanOrEqual(40);

    expect(good.insights!.strengths).toContainEqual(
      expect.stringContaining(
        'Answered "How did you handle disagreements within the team?" concretely, naming PostgreSQL and DynamoDB',
      ),
    );
    expect(poor.insights!.weaknesses).toEqual(
      expect.arrayContaining([
        'Dodged "How did you handle disagreements within the team?": "Uh, I don\'t know."',
        'Did not answer "What would you do differently if you started that project again?".',
        expect.stringMatching(/^Used many filler words \(about \d+ in every 100\), e\.g\. "/),
      ]),
    );
    expect(poor.insights!.unanswered).toEqual([
      'How did you handle disagreements within the team?',
      'What would you do differently if you started that project again?',
    ]);
    // The good candidate's own question in reply to "any questions for me?" answers it.
    expect(good.insights!.question_assessments!.at(-1)).toMatchObject({
      question: 'Thank you, Jordan. Do you have any questions for me?',
      answered: 'yes',
      evidence: "Yes, how does the team decide what goes into each quarter's roadmap?",
    });
  });

  it('summarises an interview question by question with the facts given, in the third person', async () => {
    const utterances = interview('good');
    const { insights } = await engine.analyse({ utterances, botName: 'Ava', processInsights: true });
    const summary = insights!.summary;
    expect(summary).toMatch(/^Ava interviewed Jordan Lee \(6 questions, all answered\)\.\n/);
    expect(summary).toContain('On "How did you handle disagreements within the team?": Jordan said that ');
    for (const fact of [
      '40 percent',
      'PostgreSQL',
      'DynamoDB',
      'two hours every Friday',
      'about three weeks',
    ])
      expect(summary).toContain(fact);
    // Its own words (outside the quoted questions and answers) are in the third person.
    expect(summary.replace(/"[^"]*"/g, '')).not.toMatch(/\b(?:I|I'm|I'll|we|we're|our|my)\b/);
    expect(summary.split('\n').at(-1)).toMatch(/^To close, Ava said "/);
  });

  it('honours a summary format prompt: bullets, numbered, a sentence count, a word limit, speakers', async () => {
    const utterances = syntheticMeeting(3000, 7);
    const run = async (summaryFormatPrompt: string) =>
      (await engine.analyse({ utterances, summaryFormatPrompt, processInsights: true })).insights!.summary;

    const bullets = (await run('Give me 4 bullet points')).split('\n');
    expect(bullets).toHaveLength(4);
    for (const line of bullets) expect(line).toMatch(/^- \S/);

    const numbered = (await run('A numbered list of three items, please')).split('\n');
    expect(numbered.map((l) => l.slice(0, 3))).toEqual(['1. ', '2. ', '3. ']);

    const short = await run('Keep it under 40 words.');
    expect(short.split(/\s+/).length).toBeLessThanOrEqual(40);

    const oneSentence = await run('One sentence.');
    expect(summarySentences(oneSentence)).toHaveLength(1);

    const speakers = await run('Bullet points, and name the speakers');
    for (const line of speakers.split('\n')) expect(line).toMatch(/^- /);
    expect(speakers).toMatch(/(?:Dana Whitfield|Priya Raman|Marco Bellini|Lena Hoffmann) said that /);

    // No prompt: who met about what, then the meeting part by part.
    expect(await run('')).toMatch(/^[^\n]+ met about the [^\n]+\nFirst, /);
  });

  it('reads format prompts', () => {
    expect(parseSummaryFormat('5 bullet points')).toEqual({
      style: 'bullets',
      sentences: 5,
      speakers: false,
    });
    expect(parseSummaryFormat('a short paragraph of at most 60 words')).toMatchObject({
      style: 'prose',
      maxWords: 60,
      sentences: 1,
    });
    expect(parseSummaryFormat('brief')).toMatchObject({ sentences: 3 });
    expect(parseSummaryFormat('a detailed summary')).toMatchObject({ sentences: 10 });
    expect(parseSummaryFormat(undefined)).toEqual({ style: 'prose', speakers: false });
    expect(summaryParts(1000)).toBe(2);
    expect(summaryParts(27_000)).toBe(3);
  });

  it('lets an analysis prompt double the weight of the components it names', async () => {
    expect(weightsFor('interview', 'Focus on clarity and filler words')).toEqual({
      answers: 0.9,
      clarity: 0.2,
    });
    expect(weightsFor('meeting', 'We care about concrete examples and clear next steps')).toMatchObject({
      specificity: 0.4,
      outcomes: 0.6,
      clarity: 0.3,
      participation: 0.15,
    });
    const utterances = interview('poor');
    const plain = await engine.analyse({ utterances, botName: 'Ava', processInsights: true });
    const clarity = await engine.analyse({
      utterances,
      botName: 'Ava',
      processInsights: true,
      analysisPrompt: 'Judge mostly the clarity of communication.',
    });
    expect(clarity.insights!.overall_score).toBeLessThan(plain.insights!.overall_score);
  });

  it('finds topics and action items', async () => {
    const { insights } = await engine.analyse({
      processInsights: true,
      utterances: talk([
        ['Dana', 'The onboarding flow lost a third of new users at the payment step last month.'],
        [
          'Priya',
          'The onboarding flow needs a shorter payment form, and the payment step should accept cards.',
        ],
        ['Marco', 'We need to test the new payment form with five customers before the release.'],
        ['Dana', "Let's schedule the onboarding flow review for Thursday."],
        ['Priya', 'Action item for me: send the payment form mock-ups to the design team by Friday.'],
        ['Marco', "We'll see how it goes."],
      ]),
    });
    expect(insights!.topics).toEqual(expect.arrayContaining(['onboarding flow', 'payment form']));
    expect(insights!.action_items).toEqual([
      'Marco: We need to test the new payment form with five customers before the release.',
      "Dana: Let's schedule the onboarding flow review for Thursday.",
      'Priya: Action item for me: send the payment form mock-ups to the design team by Friday.',
    ]);
  });
});

describe('local insights engine: edge cases', () => {
  it('an empty transcript (or one of blank lines) gives no pairs and the silent-session insights', async () => {
    for (const utterances of [
      [],
      talk([
        ['A', '   '],
        ['B', ''],
      ]),
    ]) {
      const r = await engine.analyse({ utterances, processInsights: true });
      expect(r.qaPairs).toEqual([]);
      expect(r.insights).toMatchObject({ overall_score: 0, summary: 'Nothing was said during the session.' });
      expect((await engine.analyse({ utterances, processInsights: false })).insights).toBeNull();
    }
  });

  it('one speaker only: no pairs, and the evaluation says there was no exchange', async () => {
    const r = await engine.analyse({
      processInsights: true,
      utterances: talk([
        ['Solo', 'Welcome everyone. What should we build next quarter?'],
        ['Solo', 'I think the answer is a better export, because customers asked for it 40 times.'],
        ['Solo', 'We will start with CSV and add Excel later.'],
      ]),
    });
    expect(r.qaPairs).toEqual([]);
    expect(r.insights!.weaknesses).toContain('Only Solo spoke; there was no exchange to evaluate.');
    expect(r.insights!.score_basis).toBe('meeting');
    expect(r.insights!.summary.length).toBeGreaterThan(0);
  });

  it('no questions: no pairs, a weakness saying so, a score from the other features', async () => {
    const lines: [string, string][] = [];
    for (let i = 0; i < 12; i++) {
      lines.push([
        'Ana',
        `The warehouse project finished phase ${i + 1} on time and within the budget we agreed.`,
      ]);
      lines.push(['Ben', `Good, the customer team confirmed phase ${i + 1} works for their weekly reports.`]);
    }
    const r = await engine.analyse({ processInsights: true, utterances: talk(lines) });
    expect(r.qaPairs).toEqual([]);
    expect(r.insights!.weaknesses).toContain(
      'No questions were asked in 312 words, so there was little back-and-forth.',
    );
    expect(r.insights!.strengths).toContain(
      'Both speakers contributed, from Ben (46%) to Ana (54%) of the words.',
    );
    expect(r.insights!.overall_score).toBeGreaterThan(0);
  });

  it('processInsights false still extracts Q&A pairs', async () => {
    const r = await engine.analyse({ utterances: interview('good'), botName: 'Ava', processInsights: false });
    expect(r.insights).toBeNull();
    expect(r.qaPairs.length).toBeGreaterThanOrEqual(5);
  });

  it('treats lines of the named bot as the bot’s even without is_bot', async () => {
    const utterances = interview('good').map(({ is_bot: _drop, ...u }) => u);
    const named = await engine.analyse({ utterances, botName: 'Ava', processInsights: true });
    const flagged = await engine.analyse({
      utterances: interview('good'),
      botName: 'Ava',
      processInsights: true,
    });
    expect(named).toEqual(flagged);
  });

  it('completes a 3-hour (27,000-word) meeting with sensible output', async () => {
    const utterances = syntheticMeeting(27_000);
    expect(countWords(utterances)).toBeGreaterThanOrEqual(27_000);
    const r = await engine.analyse({ utterances, processInsights: true });
    expect(r.qaPairs.length).toBeGreaterThan(100);
    expect(r.insights!.summary).toMatch(/^[^\n]+ met about [^\n]+\nFirst, [^\n]+ Then, [^\n]+ Finally, /);
    expect(r.insights!.summary).toMatch(/\nNext steps: /);
    expect(r.insights!.topics!.length).toBeGreaterThan(3);
  });

  it('is deterministic', async () => {
    const utterances = syntheticMeeting(5000, 3);
    const a = await engine.analyse({ utterances, processInsights: true });
    const b = await engine.analyse({ utterances: structuredClone(utterances), processInsights: true });
    expect(b).toEqual(a);
  });

  it('keeps asked_at null when an utterance carries no valid timestamp', () => {
    const utterances = talk([
      ['A', 'What is the plan for the launch?'],
      ['B', 'We launch on Monday with the beta group.'],
    ]);
    utterances[0]!.started_at = 'yesterday';
    expect(analyseLocally({ utterances, processInsights: false }).qaPairs[0]!.asked_at).toBeNull();
  });

  it('any conversation gives output valid by the API schemas (property)', () => {
    const vocabulary = [
      'what',
      'how',
      'why',
      'we',
      'need',
      'to',
      'budget',
      'the',
      'team',
      'yeah',
      'um',
      '42',
    ];
    const sentence = fc
      .tuple(
        fc.array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 14 }),
        fc.constantFrom('.', '?', '', '!', '...'),
      )
      .map(([ws, end]) => `${ws.join(' ')}${end}`);
    const utterance = fc.record({
      speaker: fc.constantFrom('A', 'B', 'C', 'Bot'),
      text: fc.array(sentence, { maxLength: 4 }).map((s) => s.join(' ')),
    });
    fc.assert(
      fc.property(
        fc.array(utterance, { maxLength: 30 }),
        fc.boolean(),
        fc.option(fc.string()),
        (lines, processInsights, prompt) => {
          const utterances = talk(lines.map((l) => [l.speaker, l.text]));
          const r = analyseLocally({
            utterances,
            botName: 'Bot',
            processInsights,
            summaryFormatPrompt: prompt ?? undefined,
            analysisPrompt: prompt ?? undefined,
          });
          for (const p of r.qaPairs) {
            expect(qaPairSchema.parse(p)).toEqual(p);
            expect(p.asked_by).not.toBe(p.answered_by);
          }
          if (processInsights) {
            const insights = insightsSchema.parse(r.insights);
            expect(insights.overall_score).toBeGreaterThanOrEqual(0);
            expect(insights.overall_score).toBeLessThanOrEqual(100);
          } else expect(r.insights).toBeNull();
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('validatedResult', () => {
  it('throws an InsightsError with a message fit for the webhook', () => {
    const bad = {
      qaPairs: [],
      insights: { summary: 'x', overall_score: 101, strengths: [], weaknesses: [] },
    };
    expect(() => validatedResult(bad)).toThrow(InsightsError);
    try {
      validatedResult(bad);
    } catch (err) {
      expect(err).toMatchObject({ code: 'invalid_result', retryable: false });
      expect((err as Error).message).toBe(
        'Insights could not be generated: the analysis produced an invalid result.',
      );
    }
  });
});

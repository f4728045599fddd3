// End of turn from the meaning: a finished sentence that has not yet answered the question waits the long silence; an
// answer that hands the turn back waits the short one. Multi-sentence answers as people give them (the first
// sentences of our interview fixtures and of the Changelog and AMI transcripts the benchmark reads).
import { describe, expect, it } from 'vitest';
import { answerState, turnContextOf } from '../../core/conversation/answer-completeness';
import { endOfTurnWaitMs, turnTakingDefaults } from '../../core/conversation/turn-taking';

const rule = turnTakingDefaults;
const projectQuestion = 'Let’s start: can you tell me about a project you are proud of?';

describe('answer completeness', () => {
  it('holds after a preface or an announcement, before the answer itself', () => {
    // "Sure." then the story (interview-good.json); "Yeah." then the story (a Changelog interview).
    expect(answerState({ asked: projectQuestion, answer: 'Sure.' })).toBe('open');
    expect(answerState({ asked: 'What did you study?', answer: 'Yeah, well.' })).toBe('open');
    expect(answerState({ asked: 'Why did you leave?', answer: 'There are two reasons.' })).toBe('open');
    expect(answerState({ answer: "Good question. Here's the thing." })).toBe('open');
  });

  it('holds while an open question has had less than an account', () => {
    expect(
      answerState({ asked: projectQuestion, answer: 'Last year I led the migration of our billing system.' }),
    ).toBe('open');
    // The same sentence answering a question for a fact is not held.
    expect(
      answerState({
        asked: 'What did you do last year?',
        answer: 'I led the migration of our billing system.',
      }),
    ).toBe('unclear');
    // An account long enough: the meaning no longer tells.
    expect(
      answerState({
        asked: projectQuestion,
        answer:
          'Last year I led the migration of our billing system from a monolith to three services. The team was four engineers and we had six months.',
      }),
    ).toBe('unclear');
  });

  it('lets go of an answer that hands the turn back', () => {
    expect(answerState({ asked: projectQuestion, answer: 'It went fine. Why do you ask?' })).toBe('done');
    expect(answerState({ asked: projectQuestion, answer: 'We shipped it in May. So yeah.' })).toBe('done');
    expect(answerState({ asked: 'How do you test?', answer: 'Mostly unit tests. That’s about it.' })).toBe(
      'done',
    );
  });

  it('reads the context from the transcript: the bot’s last line and what was said since', () => {
    const line = (text: string, bot = false) => ({
      speaker: bot ? 'Iris' : 'Ann',
      participant_id: bot ? 'bot' : 'ann',
      started_at: '2026-01-01T00:00:00.000Z',
      text,
      ...(bot && { is_bot: true }),
    });
    const transcript = [line('Hello.', true), line('Hi.'), line(projectQuestion, true), line('Sure.')];
    expect(turnContextOf(transcript, 'Last year I led it.')).toEqual({
      asked: projectQuestion,
      answer: 'Sure. Last year I led it.',
    });
    // The recorder took the final words first: not counted twice.
    expect(turnContextOf(transcript, 'Sure.', 'ann')).toEqual({ asked: projectQuestion, answer: 'Sure.' });
    expect(turnContextOf([], 'Hi.')).toEqual({ answer: 'Hi.' });
  });
});

describe('end of turn with the meaning', () => {
  it('waits the long silence after a finished sentence that has not answered yet, the short one otherwise', () => {
    const context = { asked: projectQuestion, answer: 'Sure.' };
    expect(endOfTurnWaitMs('Sure.', rule)).toBe(rule.completeMs);
    expect(endOfTurnWaitMs('Sure.', rule, context)).toBe(rule.incompleteMs);
    expect(
      endOfTurnWaitMs('So yeah', rule, { asked: projectQuestion, answer: 'We shipped it. So yeah' }),
    ).toBe(rule.completeMs);
    // Words that cannot end a thought wait the long silence whatever the meaning; the fixed rule ignores both.
    expect(endOfTurnWaitMs('and', rule, { answer: 'Why? And' })).toBe(rule.incompleteMs);
    expect(endOfTurnWaitMs('Sure.', { ...rule, mode: 'fixed' }, context)).toBe(rule.unclearMs);
  });

  it('with meaning off, or no context, the words alone decide', () => {
    const context = { asked: projectQuestion, answer: 'Sure.' };
    expect(endOfTurnWaitMs('Sure.', { ...rule, meaning: false }, context)).toBe(rule.completeMs);
    expect(endOfTurnWaitMs('Sure.', rule)).toBe(rule.completeMs);
  });
});

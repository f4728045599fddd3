// agendaOf: the topics of a bot_prompt as people write it (prose, lists, questions), each with a natural question.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agendaOf, maxAgendaTopics, secondPerson } from '../../core/engines/rules/conversation/agenda';
import { splitSentences } from '../../core/engines/rules/insights/text';

const topicsOf = (prompt: string) => agendaOf(prompt).topics.map((t) => t.topic);
const questionsOf = (prompt: string) => agendaOf(prompt).topics.map((t) => t.question);

describe('agendaOf: prose', () => {
  it('"ask about X, Y, and Z" (the issue’s prompt): three topics, pronouns moved to the candidate', () => {
    const agenda = agendaOf(
      'You are interviewing a candidate for a backend engineer role. Ask about their last project, a hard bug they fixed, and how they test code.',
    );
    expect(agenda.topics.map((t) => t.topic)).toEqual([
      'your last project',
      'a hard bug you fixed',
      'how you test code',
    ]);
    expect(agenda.topics[0]!.question).toBe('Could you tell me about your last project?');
    expect(agenda.topics[1]!.question).toMatch(
      /^(?:What can you tell me about|Can you walk me through) a hard bug you fixed\?$/,
    );
    expect(agenda.topics[2]!.question).toMatch(/how you test code\?$/);
    expect(agenda.closing).toBeNull();
  });

  it('"find out …": indirect questions become "Could you tell me …?"', () => {
    expect(
      questionsOf(
        'Find out what they know about Kubernetes, whether they have been on call, and why they want to leave their current job.',
      ),
    ).toEqual([
      'Could you tell me what you know about Kubernetes?',
      'Could you tell me whether you have been on call?',
      'Could you tell me why you want to leave your current job?',
    ]);
  });

  it('"cover: …" with an Oxford-less list', () => {
    expect(topicsOf('Cover: system design, databases and caching.')).toEqual([
      'system design',
      'databases',
      'caching',
    ]);
  });

  it('"screen them on …" keeps the author’s capitals, and takes the closing of the prompt', () => {
    const agenda = agendaOf(
      'You are a recruiter. Screen them on SQL, Python and communication skills. At the end, tell them the recruiter will contact them within a week.',
    );
    expect(agenda.topics.map((t) => t.topic)).toEqual(['SQL', 'Python', 'communication skills']);
    expect(agenda.topics[1]!.question).toMatch(/Python\?$/);
    expect(agenda.closing).toBe('The recruiter will contact you within a week.');
  });

  it('"I want to know …" splits "X and how Y" but not "Kubernetes and Docker"', () => {
    expect(
      topicsOf('I want to know about their leadership experience and how they handle conflict.'),
    ).toEqual(['your leadership experience', 'how you handle conflict']);
    expect(
      topicsOf(
        'Ask about their experience with Kubernetes and Docker, and whether they have mentored anyone.',
      ),
    ).toEqual(['your experience with Kubernetes and Docker', 'whether you have mentored anyone']);
  });

  it('two instructions in one sentence leave no connective behind as a topic', () => {
    expect(
      topicsOf(
        'I want to know about their leadership experience and how they handle conflict, and ask them to describe their biggest failure.',
      ),
    ).toEqual(['your leadership experience', 'how you handle conflict', 'describe your biggest failure']);
  });

  it('"ask them to describe …", "have them walk you through …", "get them to talk about …"', () => {
    expect(questionsOf('Ask them to describe their biggest failure.')).toEqual([
      'Could you describe your biggest failure?',
    ]);
    expect(
      questionsOf(
        'You are Iris. Have them walk you through a recent deployment and get them to talk about monitoring.',
      ),
    ).toEqual(['Could you walk me through a recent deployment?', 'What can you tell me about monitoring?']);
  });

  it('"we would like to hear about …", "interview them on …", "Topics: …", "please ask the candidate about …"', () => {
    expect(
      topicsOf('We would like to hear about their favourite tools, plus their on-call experience.'),
    ).toEqual(['your favourite tools', 'your on-call experience']);
    expect(topicsOf('Interview them on their career so far.')).toEqual(['your career so far']);
    expect(topicsOf('Topics: team size, tech stack, remote work')).toEqual([
      'team size',
      'tech stack',
      'remote work',
    ]);
    expect(topicsOf('Please ask the candidate about his or her last role; then thank them.')).toEqual([
      'your last role',
    ]);
  });

  it('leaves out negated instructions, conditionals, role descriptions and instruction lists', () => {
    const prompt = `You are a friendly interviewer for a backend team. Be concise. Don't ask about their age.
If they ask about salary, say it depends on experience.
Ask about their cover letter and their notice period.
Rules:
- Be concise
- Never interrupt`;
    expect(topicsOf(prompt)).toEqual(['your cover letter', 'your notice period']);
    expect(agendaOf(prompt).closing).toBeNull();
    expect(agendaOf('Just listen and take notes.').topics).toEqual([]);
    expect(agendaOf('You interview candidates for a support role.').topics).toEqual([]);
  });
});

describe('agendaOf: lists and questions', () => {
  it('numbered and bulleted items: questions as written, requests in the customer’s words', () => {
    const prompt = `You are a friendly interviewer for a backend role. Ask these questions:
1. Tell me about your last project
2. What was the hardest bug you fixed?
- How do you test your code?
* Their favourite database`;
    expect(agendaOf(prompt).topics).toEqual([
      {
        topic: 'your last project',
        question: 'Tell me about your last project?',
        rephrased: 'Could you tell me about your last project?',
      },
      {
        topic: 'What was the hardest bug you fixed',
        question: 'What was the hardest bug you fixed?',
        rephrased: 'In other words, what was the hardest bug you fixed?',
      },
      {
        topic: 'How do you test your code',
        question: 'How do you test your code?',
        rephrased: 'In other words, how do you test your code?',
      },
      expect.objectContaining({
        topic: 'your favourite database',
        question: expect.stringMatching(/your favourite database\?$/),
      }),
    ]);
  });

  it('"?" sentences in prose, with "Ask:" and "then ask …" lead-ins', () => {
    expect(questionsOf('Ask: why do you want this job? Then ask what salary they expect?')).toEqual([
      'Why do you want this job?',
      'Could you tell me what salary you expect?',
    ]);
    // A quoted question is an example, not a topic.
    expect(questionsOf('Answer politely, e.g. if someone says "is this recorded?" tell them yes.')).toEqual(
      [],
    );
  });

  it('a list item holding an instruction is read as prose; duplicates are dropped', () => {
    expect(
      topicsOf(
        'Agenda:\n- Ask about their last project\n- Find out how they test code\n- Ask about their last project',
      ),
    ).toEqual(['your last project', 'how you test code']);
  });

  it('closings: quoted, "tell them …", "next steps: …"; first one wins', () => {
    expect(
      agendaOf('Interview them on their career. Before you end, say "Thanks, we will be in touch soon!"')
        .closing,
    ).toBe('Thanks, we will be in touch soon!');
    expect(
      agendaOf('Ask about their hobbies. Close by telling them that HR will email them on Friday.').closing,
    ).toBe('HR will email you on Friday.');
    expect(agendaOf('Next steps: a call with the hiring manager next week.').closing).toBe(
      'Next steps: a call with the hiring manager next week.',
    );
    // "next steps" as a topic is not a closing.
    expect(agendaOf('Ask about their next steps in their career.').closing).toBeNull();
    // Quotes around no words are not a closing (found by the property below in CI, seed 338362642).
    expect(agendaOf('At the end, tell them " #"').closing).toBeNull();
    // Nor is what is left of a list item once its label and aside are stripped a topic without a word in it.
    expect(agendaOf('Q0;(B)').topics).toEqual([]);
    expect(agendaOf('0( A ) ?').topics).toEqual([]);
  });

  it('secondPerson moves the prompt’s third person to the participant', () => {
    expect(secondPerson('what the candidate has built and why they’re proud of their work')).toBe(
      'what you have built and why you’re proud of your work',
    );
    expect(secondPerson('They said their team trusted them')).toBe('You said your team trusted you');
  });
});

/** Prompt-like text: instruction phrases, topics, list markers and punctuation in any order, plus noise. */
const promptish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'Ask about',
        'ask them to describe',
        'Find out whether',
        'Cover:',
        'Screen them on',
        'I want to know',
        "Don't ask about",
        'At the end, tell them',
        'Topics:',
        'their last project',
        'how they test code',
        'and',
        ',',
        '.',
        '?',
        '\n1.',
        '\n- ',
        '\n',
        ':',
        '"',
        '(',
        ')',
        'e.g.',
        'then',
        'If they ask',
        'next steps',
      ),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(' '));

describe('agendaOf: properties', () => {
  it('never throws; topics and questions are never empty; each question is one sentence ending in "?"', () => {
    fc.assert(
      fc.property(
        fc.oneof(promptish, fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 200 })),
        (p) => {
          const agenda = agendaOf(p);
          expect(agenda.topics.length).toBeLessThanOrEqual(maxAgendaTopics);
          const seen = new Set<string>();
          for (const t of agenda.topics) {
            for (const text of [t.topic, t.question, t.rephrased]) expect(text.trim()).toMatch(/[a-z]/i);
            expect(t.question).toMatch(/\?$/);
            expect(t.rephrased).toMatch(/\?$/);
            expect(t.rephrased).not.toBe(t.question);
            expect(seen.has(t.question)).toBe(false);
            seen.add(t.question);
          }
          if (agenda.closing !== null) expect(agenda.closing).toMatch(/[a-z]/i);
          expect(agendaOf(p)).toEqual(agenda); // pure
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('prose lists of generated topics come back in order, one topic each', () => {
    const topic = fc.constantFrom(
      'their last project',
      'a hard bug they fixed',
      'how they test code',
      'their notice period',
      'why they want to join',
      'their favourite tools',
      'whether they have mentored anyone',
    );
    const lead = fc.constantFrom(
      'Ask about',
      'Find out',
      'I want to know',
      'Cover',
      'Screen them on',
      'We would like to hear about',
    );
    fc.assert(
      fc.property(
        lead,
        fc.uniqueArray(topic, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (l, ts, oxford) => {
          const list =
            ts.length === 1 ? ts[0]! : `${ts.slice(0, -1).join(', ')}${oxford ? ',' : ''} and ${ts.at(-1)}`;
          const got = topicsOf(`You are an interviewer. ${l} ${list}.`);
          // "find out" and "I want to know" need a wh-word or a determiner after them; both kinds are in the pool.
          expect(got).toEqual(ts.map((t) => secondPerson(t)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a question is one spoken sentence (the bot speaks, and the engine matches, sentence by sentence)', () => {
    for (const p of [
      'Ask about their last project, their favourite tools (editors, CI, cloud) and how they test code.',
      'Cover: system design, databases and caching.',
    ]) {
      for (const t of agendaOf(p).topics) expect(splitSentences(t.question)).toHaveLength(1);
    }
  });
});

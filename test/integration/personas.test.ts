// Scripted candidates interviewed through the local stack, a real bot-task and the local room, scored by the
// offline engine: a strong candidate beats a confident bluffer by at least 10 points, the bluffer beats an evasive
// one, and the evasive interview's weaknesses name what was dodged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Persona, personaAnswers, personaQuestions } from '../fixtures/insights/personas';
import { type FakeLlmCall, type FakeLlmServer, startFakeLlmServer } from '../support/fake-llm-server';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

const timing = { END_OF_TURN_SILENCE_MS: '150', LOCAL_SPEECH_MS_PER_CHAR: '1', TRANSCRIPT_FLUSH_MS: '200' };

const prompt =
  'You are interviewing a candidate for a backend engineer role. Ask about their last project, the hardest bug they fixed, and how they test their code.';

interface Outcome {
  persona: Persona;
  status: {
    transcript: string;
    qa_pairs: { question: string; answer: string }[];
    insights: {
      overall_score: number;
      strengths: string[];
      weaknesses: string[];
      unanswered?: string[];
      question_assessments?: { answered: string }[];
    };
  };
}

async function interview(stack: TestStack, key: string, persona: Persona): Promise<Outcome> {
  const room = `persona-${persona}`;
  await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: room }) });
  // In the room first, answering each of the bot's questions in turn; leaving ends the session (participant_left).
  await fetch(`${stack.baseUrl}/rooms/${room}/participants`, {
    method: 'POST',
    body: JSON.stringify({
      name: 'Candidate',
      answers: personaAnswers(persona).map((say) => ({ say, delay_ms: 100 })),
    }),
  });
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      provider: 'local',
      room_url: `${stack.baseUrl}/rooms/${room}`,
      bot_config: { name: 'Iris', bot_prompt: prompt },
    },
  });
  expect(res.status).toBe(201);
  const botId = res.body.bot_id as string;
  const log = stack.rooms.rooms.get(room)!.log;
  // The bot closes after the last topic; then it is stopped and its results are processed.
  await until(
    () =>
      log.some(
        (e) =>
          e.type === 'utterance' &&
          e.name === 'Iris' &&
          /thank you/i.test(e.text) &&
          log.filter((x) => x.type === 'utterance' && x.name === 'Candidate').length >= 3,
      ),
    60_000,
  );
  await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
  const status = await until(async () => {
    const s = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    return s.status === 'completed' && s;
  }, 30_000);
  return { persona, status };
}

/** The issue's ordering, checked on the sessions' final status. */
function expectRubricOrder(outcomes: Outcome[]) {
  const score = (p: Persona) => outcomes.find((o) => o.persona === p)!.status.insights.overall_score;
  expect(score('strong') - score('bluffer')).toBeGreaterThanOrEqual(10);
  expect(score('bluffer')).toBeGreaterThan(score('evasive'));
  expect(score('strong')).toBeGreaterThan(score('rambling'));
  const weaknesses = outcomes.find((o) => o.persona === 'evasive')!.status.insights.weaknesses.join(' ');
  expect(weaknesses).toMatch(/dodg|not answer|unanswered/i);
  for (const topic of [/project/i, /bug/i, /test/i]) expect(weaknesses).toMatch(topic);
}

const personas: Persona[] = ['strong', 'bluffer', 'evasive', 'rambling'];

describe('scripted personas interviewed through the local room, scored offline', () => {
  let stack: TestStack;
  let key: string;
  beforeAll(async () => {
    stack = await startTestStack(timing);
    ({ apiKey: key } = await stack.account(50));
  });
  afterAll(() => stack?.close());

  it('strong > bluffer by ≥ 10, bluffer > evasive; the evasive weaknesses name what was dodged', async () => {
    const outcomes = await Promise.all(personas.map((p) => interview(stack, key, p)));
    for (const o of outcomes) {
      const lines = personaAnswers(o.persona);
      if (o.persona === 'evasive') {
        // Dodges and questions asked back are not answers: whatever is paired is the candidate's own words.
        for (const q of o.status.qa_pairs) {
          if (q.answer)
            expect(
              lines.some((l) => l.includes(q.answer)),
              q.answer,
            ).toBe(true);
        }
      } else {
        // Each answer is paired with its question, never with small talk or the next answer.
        expect(
          o.status.qa_pairs.map((q) => q.answer),
          o.persona,
        ).toEqual(lines);
      }
    }
    expectRubricOrder(outcomes);
  }, 120_000);
});

/**
 * A model that follows the rubric (core/insights/rubric.ts), replayed by a fake OpenAI-compatible server: it asks
 * the three questions in turn and grades each persona's interview as the rubric's anchors say.
 */
const graded: Record<
  Persona,
  { score: number; answered: 'yes' | 'partly' | 'no'; quality: number; weak: string[] }
> = {
  strong: {
    score: 92,
    answered: 'yes',
    quality: 5,
    weak: ['No weakness of substance: every answer had figures.'],
  },
  bluffer: {
    score: 38,
    answered: 'partly',
    quality: 2,
    weak: ['Confident but empty: "a world-class, cutting-edge platform" names no tool, figure or outcome.'],
  },
  evasive: {
    score: 8,
    answered: 'no',
    quality: 1,
    weak: [
      'Dodged the last project: "I\'d rather not get into the details of that one".',
      'Did not answer the hardest bug: "I don\'t remember any particular bug".',
      'Did not answer how they test: "It depends on the project, really".',
    ],
  },
  rambling: {
    score: 30,
    answered: 'partly',
    quality: 2,
    weak: ['Rambling: the answer about the last project drifts to lunch and tacos.'],
  },
};

function rubricModel(call: FakeLlmCall) {
  if (call.body.response_format) {
    const persona = personas.find((p) => call.lastUser.includes(personaAnswers(p)[0]!.slice(0, 40)))!;
    const g = graded[persona];
    const lines = call.lastUser.split('\n').map((l) => /^(\d+)\t([^:]+): (.*)$/.exec(l));
    const qa_pairs = personaQuestions.map((question, i) => {
      const asked = lines.find((m) => m?.[3]?.includes(question));
      const answer = personaAnswers(persona)[i]!;
      return {
        question,
        answer,
        line: Number(asked?.[1] ?? 1),
        asked_by: 'Iris',
        answered_by: 'Candidate',
        answered: g.answered,
        quality: g.quality,
        evidence: answer.split(/(?<=[.!?])\s/)[0]!,
      };
    });
    const insights = {
      summary: `Iris interviewed the candidate about their last project, the hardest bug and testing.`,
      score_basis: 'interview',
      overall_score: g.score,
      strengths: persona === 'strong' ? ['Specific: "Checkout p95 latency went from 900 ms to 240 ms".'] : [],
      weaknesses: g.weak,
      topics: ['last project', 'hardest bug', 'testing'],
      action_items: [],
      engine_notes: [],
    };
    return { content: JSON.stringify({ qa_pairs, insights }) };
  }
  const answered = call.body.messages
    .flatMap((m) => (m.role === 'user' ? m.content.split('\n') : []))
    .filter((l) => l.startsWith('Candidate: ')).length;
  if (/your next message is your opening line/.test(call.system)) {
    return { content: `Hi, I'm Iris. ${personaQuestions[0]}` };
  }
  if (answered < personaQuestions.length) return { content: `Thank you. ${personaQuestions[answered]}` };
  return { content: 'Thank you, that was my last question.' };
}

describe('the same personas with an OpenAI-compatible model (a fake server replaying rubric-following answers)', () => {
  let server: FakeLlmServer;
  let stack: TestStack;
  let key: string;
  beforeAll(async () => {
    server = await startFakeLlmServer({ model: 'rubric-model', apiKey: null, handler: rubricModel });
    stack = await startTestStack({ ...timing, LLM_BASE_URL: server.baseUrl, LLM_MODEL: 'rubric-model' });
    ({ apiKey: key } = await stack.account(50));
  });
  afterAll(async () => {
    await stack?.close();
    await server?.close();
  });

  it('strong > bluffer by ≥ 10, bluffer > evasive; the evasive weaknesses name what was dodged', async () => {
    const outcomes = await Promise.all(personas.map((p) => interview(stack, key, p)));
    expect(server.violations).toEqual([]);
    for (const o of outcomes) {
      expect(o.status.insights.question_assessments?.map((q) => q.answered)).toEqual(
        Array(3).fill(graded[o.persona].answered),
      );
    }
    expectRubricOrder(outcomes);
  }, 120_000);
});

// Scripted candidates interviewed through the local stack, a real bot-task and the local room, scored by the
// offline engine: a strong candidate beats a confident bluffer by at least 10 points, the bluffer beats an evasive
// one, and the evasive interview's weaknesses name what was dodged (issue #12, "Done when").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Persona, personaAnswers } from '../fixtures/insights/personas';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack({
    END_OF_TURN_SILENCE_MS: '150',
    LOCAL_SPEECH_MS_PER_CHAR: '1',
    TRANSCRIPT_FLUSH_MS: '200',
  });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

const prompt =
  'You are interviewing a candidate for a backend engineer role. Ask about their last project, the hardest bug they fixed, and how they test their code.';

interface Outcome {
  persona: Persona;
  status: {
    transcript: string;
    qa_pairs: { question: string; answer: string }[];
    insights: { overall_score: number; strengths: string[]; weaknesses: string[]; unanswered?: string[] };
  };
}

async function interview(persona: Persona): Promise<Outcome> {
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

describe('scripted personas interviewed through the local room, scored offline', () => {
  it('strong > bluffer by ≥ 10, bluffer > evasive; the evasive weaknesses name what was dodged', async () => {
    const personas: Persona[] = ['strong', 'bluffer', 'evasive', 'rambling'];
    const outcomes = await Promise.all(personas.map(interview));
    const score = (p: Persona) => outcomes.find((o) => o.persona === p)!.status.insights.overall_score;
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
    expect(score('strong') - score('bluffer')).toBeGreaterThanOrEqual(10);
    expect(score('bluffer')).toBeGreaterThan(score('evasive'));
    expect(score('strong')).toBeGreaterThan(score('rambling'));
    const evasive = outcomes.find((o) => o.persona === 'evasive')!.status.insights;
    const weaknesses = evasive.weaknesses.join(' ');
    expect(weaknesses).toMatch(/dodg|not answer|unanswered/i);
    for (const topic of [/project/i, /bug/i, /test/i]) expect(weaknesses).toMatch(topic);
  }, 120_000);
});

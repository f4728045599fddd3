import { describe, expect, it } from 'vitest';
import type { Utterance } from '../../core/bots/transcript';
import { greetingSentence, LocalConversationEngine, questionsIn } from '../../core/conversation/local-engine';
import { sentences } from '../../core/ports/conversation-engine';

async function text(it: AsyncIterable<string>) {
  let out = '';
  for await (const c of it) out += c;
  return out;
}

async function* chunks(...parts: string[]) {
  for (const p of parts) yield p;
}

const line = (text: string, is_bot = false): Utterance => ({
  speaker: is_bot ? 'Bot' : 'Ann',
  participant_id: is_bot ? 'bot' : 'ann',
  started_at: new Date().toISOString(),
  text,
  ...(is_bot ? { is_bot: true } : {}),
});

const prompt = `You are a friendly interviewer for a backend role. Ask these questions:
1. Tell me about your last project
2. What was the hardest bug you fixed?
- How do you test your code?`;

describe('local conversation engine', () => {
  it('finds the questions of a prompt in order', () => {
    expect(questionsIn(prompt)).toEqual([
      'Tell me about your last project?',
      'What was the hardest bug you fixed?',
      'How do you test your code?',
    ]);
    expect(questionsIn('Ask: why do you want this job? Then ask what salary they expect?')).toEqual([
      'Why do you want this job?',
      'Then ask what salary they expect?',
    ]);
    expect(questionsIn('Just listen and take notes.')).toEqual([]);
  });

  it('uses bot_greeting when it reads as a sentence, not when it is an instruction', () => {
    expect(greetingSentence('Hi there, thanks for joining')).toBe('Hi there, thanks for joining.');
    expect(greetingSentence('Greet them warmly and introduce yourself')).toBeNull();
  });

  it('greets, asks one question at a time, acknowledges, and closes; never answers itself', async () => {
    const engine = new LocalConversationEngine();
    const ctx = {
      botName: 'Interviewer',
      prompt,
      greeting: 'Hello, thanks for coming',
      transcript: [] as Utterance[],
    };
    const hello = await text(engine.greet(ctx));
    expect(hello).toBe(
      'Hello, thanks for coming. I have 3 questions for you. Tell me about your last project?',
    );
    const t: Utterance[] = [line(hello, true)];
    expect(await text(engine.reply({ ...ctx, transcript: t }))).toBe(''); // the bot spoke last
    t.push(line('I built a billing system.'));
    const second = await text(engine.reply({ ...ctx, transcript: t }));
    expect(second).toBe('Thank you. What was the hardest bug you fixed?');
    t.push(line(second, true), line('A race in the cache.'));
    const third = await text(engine.reply({ ...ctx, transcript: t }));
    expect(third).toBe('Got it, thanks. How do you test your code?');
    t.push(line(third, true), line('Unit and integration tests.'));
    const close = await text(engine.reply({ ...ctx, transcript: t }));
    expect(close).toMatch(/That was my last question\. Thank you very much/);
    t.push(line(close, true), line('Thanks!'));
    expect(await text(engine.reply({ ...ctx, transcript: t }))).toBe('');
  });

  it('asks the first question after a participant talked over the greeting', async () => {
    const engine = new LocalConversationEngine();
    const ctx = {
      botName: 'Iris',
      prompt,
      transcript: [line("Hello everyone, I'm Iris.", true), line('Hi Iris!')],
    };
    expect(await text(engine.reply(ctx))).toBe(
      'Let me start with my first question. Tell me about your last project?',
    );
  });

  it('with no questions it greets and only listens', async () => {
    const engine = new LocalConversationEngine();
    const ctx = { botName: 'Scribe', transcript: [line('Hello?')] };
    expect(await text(engine.greet(ctx))).toBe(
      "Hello everyone, I'm Scribe. I'll be listening and taking notes.",
    );
    expect(await text(engine.reply(ctx))).toBe('');
  });
});

describe('sentence streaming', () => {
  it('emits each sentence once complete, across chunk boundaries', async () => {
    const out: string[] = [];
    for await (const s of sentences(chunks('Hello the', 're. It costs 3', '.5 dollars! Really? ', 'Yes')))
      out.push(s);
    expect(out).toEqual(['Hello there.', 'It costs 3.5 dollars!', 'Really?', 'Yes']);
  });
});

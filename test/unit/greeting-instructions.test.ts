// Issue #13 §2: a bot_greeting that is an instruction to the bot is never spoken word for word; a greeting that is a
// sentence said to the room is. Property-style: every phrasing, with the ways people wrap and punctuate them.
import { describe, expect, it } from 'vitest';
import { greetingSentence, LocalConversationEngine } from '../../core/conversation/local-engine';

/** Instructions to the bot, as operators write them. */
const instructions = [
  'Greet them warmly and introduce yourself as their interviewer',
  'Say hello and explain the format of the interview',
  'Introduce yourself as their interviewer and explain the format',
  'Welcome the candidate and thank them for their time',
  'Welcome them warmly',
  'Thank the candidate for coming in today',
  'Ask the candidate how their day is going',
  'Explain that the call is recorded, then ask the first question',
  'Tell them you are an AI interviewer from Acme',
  'Let them know the interview takes about 20 minutes',
  'Start with a friendly hello and a short introduction',
  'Begin by introducing yourself',
  'Open with a warm welcome and mention Acme',
  'Make the candidate feel welcome',
  'Be friendly and professional',
  'Keep it short and friendly',
  'Mention that you work for Acme',
  'Introduce yourself briefly',
  'A warm welcome, then explain the format',
  'A short, friendly greeting mentioning the role',
  'Something short and upbeat',
  'Warm and professional',
  'In one sentence, welcome the participants',
  'As their interviewer, greet them warmly',
  'You should greet the candidate and introduce yourself',
  'You are a friendly interviewer; greet the candidate by name',
  'Your job is to welcome the candidate',
  'I want you to say hello and explain the process',
  'Make sure to greet everyone',
  'Do not be too formal; greet them like a colleague',
  'Greet the participants in a cheerful tone',
];

/** How they are wrapped: politeness, manner and order words in front; punctuation after. */
const prefixes = ['', 'Please ', 'please ', 'Kindly ', 'Warmly ', 'Briefly ', 'First, ', 'Just '];
const suffixes = ['', '.', '!', ' ', '.\n'];

/** Sentences said to the room: spoken as written. */
const sentences = [
  "Hi, I'm Ava from Acme!",
  'Hi Casey, thanks for joining us today',
  'Hello everyone, welcome to the weekly sync',
  'Hello and welcome to this rather long introduction which goes on and on',
  'Hey there, great to meet you',
  'Good morning, everyone!',
  'Good afternoon and thanks for making the time',
  'Greetings, everyone!',
  'Welcome to your interview with Acme!',
  'Welcome, Casey!',
  'Welcome Casey, glad you could make it',
  'Welcome back, everyone',
  'Welcome aboard!',
  'Thanks for joining, I am Ava',
  'Thank you for coming in today',
  'Nice to meet you, I am Ava, your interviewer',
  "It's great to have you here",
  "I'm Ava, and I'll be your interviewer today",
  'My name is Ava; I will be interviewing you',
  "This is Ava from Acme's hiring team",
  "We're so glad you could join us",
  "Let's get started!",
  'How are you doing today?',
  'Ready when you are',
  'Hi! Tell me a little about yourself',
];

describe('bot_greeting: instructions are never spoken word for word', () => {
  const engine = new LocalConversationEngine();
  const cases = instructions.flatMap((i) =>
    prefixes.flatMap((p) =>
      suffixes.map((s) => {
        const core = p ? `${p}${i.charAt(0).toLowerCase()}${i.slice(1)}` : i;
        return `${core}${s}`;
      }),
    ),
  );

  it.each(instructions)('"%s", in every wrapping, is read as an instruction', (instruction) => {
    for (const greeting of cases.filter((c) => c.toLowerCase().includes(instruction.toLowerCase()))) {
      expect(greetingSentence(greeting), greeting).toBeNull();
    }
  });

  it.each(instructions)('the local engine does not say "%s"', async (instruction) => {
    const said: string[] = [];
    for await (const s of engine.greet({ botName: 'Ava', greeting: instruction, transcript: [] }))
      said.push(s);
    const text = said.join(' ');
    expect(text).not.toContain(instruction);
    expect(text.toLowerCase()).not.toContain(instruction.toLowerCase().slice(0, 20));
    expect(text).toMatch(/^Hello everyone, I'm Ava\./);
  });
});

describe('bot_greeting: a sentence is spoken as written', () => {
  const engine = new LocalConversationEngine();

  it.each(sentences)('"%s" is spoken, with or without end punctuation and stray spaces', (sentence) => {
    const bare = sentence.replace(/[.!?]$/, '');
    for (const greeting of [sentence, ` ${sentence} `, `${sentence}\n`]) {
      expect(greetingSentence(greeting), greeting).toBe(/[.!?]$/.test(sentence) ? sentence : `${sentence}.`);
    }
    expect(greetingSentence(bare)).toBe(`${bare}.`);
  });

  it.each(sentences)('the local engine opens with "%s"', async (sentence) => {
    const said: string[] = [];
    for await (const s of engine.greet({ botName: 'Ava', greeting: sentence, transcript: [] })) said.push(s);
    expect(said.join(' ').startsWith(sentence.replace(/[.!?]$/, ''))).toBe(true);
  });
});

// A bot_greeting that is an instruction to the bot is never spoken word for word; a greeting that is a
// sentence said to the room is. Property-style: every phrasing, with the ways people wrap and punctuate them.
import { describe, expect, it } from 'vitest';
import { callName, greetingPlan, greetingSentence } from '../../core/engines/rules/conversation/greeting';
import { LocalConversationEngine } from '../../core/engines/rules/conversation/local-engine';

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
    // Who is in the room is not known here: no "everyone", no name.
    expect(text).toMatch(/^Hello, I'm Ava[,.]/);
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

describe('bot_greeting: an instruction followed as far as rules can (greetingPlan)', () => {
  const plan = (greeting: string | undefined, people?: string[]) =>
    greetingPlan({ botName: 'Iris', greeting, people, questions: 3 });

  it('takes the role, the warmth and the one person’s name; "everyone" only for more than one', () => {
    const g = 'Greet the candidate warmly and introduce yourself as the screening assistant';
    expect(plan(g, ['Sam Carter'])).toMatchObject({
      text: "Hello Sam, I'm Iris, the screening assistant. It's great to have you here.",
      instruction: true,
      unfollowed: [],
    });
    expect(plan(g, ['Sam Carter', 'Dana Lee']).text).toBe(
      "Hello everyone, I'm Iris, the screening assistant. It's great to have you all here.",
    );
    // A display name that is no name ("Guest 1", "iPhone") is not used.
    expect(plan(g, ['Guest 1']).text).toBe(
      "Hello, I'm Iris, the screening assistant. It's great to have you here.",
    );
    expect(plan(undefined, ['Sam Carter']).text).toBe("Hello Sam, I'm Iris.");
    expect(plan(undefined, ['Ann', 'Ben']).text).toBe("Hello everyone, I'm Iris.");
    expect(plan(undefined, []).text).toBe("Hello, I'm Iris.");
  });

  it.each([
    [
      'Welcome the candidate and thank them for their time',
      "Hello Sam, I'm Iris. It's great to have you here. Thank you for your time.",
    ],
    ['Tell them you are an AI interviewer from Acme', "Hello Sam, I'm Iris, an AI interviewer from Acme."],
    [
      'Let them know the interview takes about 20 minutes',
      "Hello Sam, I'm Iris. The interview takes about 20 minutes.",
    ],
    [
      'Explain that the call is recorded, then ask the first question',
      "Hello Sam, I'm Iris. The call is recorded.",
    ],
    ['Mention that you work for Acme', "Hello Sam, I'm Iris. I work for Acme."],
    [
      'Welcome the candidate to the Acme hiring process',
      "Hello Sam, I'm Iris. Welcome to the Acme hiring process. It's great to have you here.",
    ],
    [
      'You are a friendly interviewer; greet the candidate by name',
      "Hello Sam, I'm Iris, an interviewer. It's great to have you here.",
    ],
  ])('"%s" → "%s"', (greeting, text) => {
    expect(plan(greeting, ['Sam Carter'])).toMatchObject({ text, unfollowed: [] });
  });

  it('keeps what it could not follow, in the customer’s words (never dropped silently)', () => {
    expect(plan('Open with a warm welcome and mention Acme', ['Sam']).unfollowed).toEqual(['mention Acme']);
    expect(plan('Ask the candidate how their day is going', ['Sam']).unfollowed).toEqual([
      'Ask the candidate how their day is going',
    ]);
    expect(plan('Greet the candidate by name', ['Guest 3']).unfollowed).toEqual([
      'Greet the candidate by name (no name to call them by was known)',
    ]);
    expect(plan('Say hello and explain the format of the interview', ['Sam'])).toMatchObject({
      announceFormat: true,
      unfollowed: [],
    });
  });

  it('the local engine opens with it, then the questions', async () => {
    const said: string[] = [];
    for await (const s of new LocalConversationEngine().greet({
      botName: 'Iris',
      prompt: 'Ask: What is your name? Why do you want this job?',
      greeting: 'Say hello and explain the format of the interview',
      participants: ['Sam Carter'],
      transcript: [],
    }))
      said.push(s);
    expect(said.join(' ')).toBe(
      "Hello Sam, I'm Iris. I have 2 questions for you, and I'll ask them one at a time. What is your name?",
    );
  });
});

describe('callName', () => {
  it.each([
    ['Sam Carter', 'Sam'],
    ['sam', 'Sam'],
    ['Dr. Ana Lopez', 'Ana'],
    ['Anne-Marie O’Neil', 'Anne-Marie'],
    ['Guest 2', null],
    ['iPhone', null],
    ['sam-laptop', null],
    ['Candidate', null],
    ['', null],
  ])('%s → %s', (name, expected) => {
    expect(callName(name)).toBe(expected);
  });
});

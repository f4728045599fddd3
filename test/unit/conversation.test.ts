// The local conversation engine over scripted transcripts: an answer is an answer (small talk, repeat requests,
// fragments and talking over the bot never move the agenda on), one follow-up on a thin answer, next steps,
// the closing, and a state read from the transcript alone (a fresh engine continues any conversation).
import { describe, expect, it } from 'vitest';
import type { Utterance } from '../../core/bots/transcript';
import { cutOff } from '../../core/conversation/cut-off';
import { agendaOf } from '../../core/engines/rules/conversation/agenda';
import { greetingSentence } from '../../core/engines/rules/conversation/greeting';
import { interviewState, LocalConversationEngine } from '../../core/engines/rules/conversation/local-engine';
import { type ConversationContext, sentences } from '../../core/ports/conversation-engine';

async function* chunks(...parts: string[]) {
  for (const p of parts) yield p;
}

const prompt =
  'You are interviewing a candidate for a backend engineer role. Ask about their last project, a hard bug they fixed, and how they test code.';
const [project, bug, testing] = agendaOf(prompt).topics;

/**
 * A meeting played line by line: the candidate's lines are given, the bot's come from `engine` and are
 * recorded sentence by sentence, as the ConversationController records them.
 */
class Meeting {
  readonly transcript: Utterance[] = [];
  private t = Date.parse('2026-01-05T10:00:00Z');

  constructor(
    readonly prompt: string | undefined,
    private engine = new LocalConversationEngine(),
    readonly greeting?: string,
  ) {}

  /** Display names in the room (unknown by default). */
  people: string[] | undefined;

  get ctx(): ConversationContext {
    return {
      botName: 'Iris',
      prompt: this.prompt,
      greeting: this.greeting,
      participants: this.people,
      transcript: this.transcript,
      ...(this.rejoining && { rejoining: true }),
    };
  }

  /** Set once the engine was replaced: the context says the bot is rejoining, as the controller's does. */
  private rejoining = false;

  add(line: string, bot = false): void {
    this.t += 2000;
    this.transcript.push({
      speaker: bot ? 'Iris' : 'Casey',
      participant_id: bot ? 'bot' : 'casey',
      started_at: new Date(this.t).toISOString(),
      text: line,
      ...(bot ? { is_bot: true } : {}),
    });
  }

  async greet(): Promise<string> {
    return this.speak(this.engine.greet(this.ctx));
  }

  /** The candidate says `line`; returns what the bot answers ('' when it keeps listening). */
  async say(line: string): Promise<string> {
    this.add(line);
    return this.speak(this.engine.reply(this.ctx));
  }

  private async speak(it: AsyncIterable<string>): Promise<string> {
    const said: string[] = [];
    for await (const s of sentences(it)) {
      this.add(s, true);
      said.push(s);
    }
    return said.join(' ');
  }

  /** A new engine instance, as after the bot-task was replaced: it has only the transcript. */
  replaceEngine(): void {
    this.engine = new LocalConversationEngine();
    this.rejoining = true;
  }
}

describe('local conversation engine: the agenda, one topic at a time', () => {
  it('greets with the first question, asks each topic once answered, then closes', async () => {
    const m = new Meeting(prompt, undefined, 'Hi Casey, thanks for joining');
    expect(await m.greet()).toBe(
      `Hi Casey, thanks for joining. I have 3 questions for you. ${project!.question}`,
    );
    expect(await m.say('I built a billing service in Go for about 3,000 merchants.')).toBe(
      `Thank you. ${bug!.question}`,
    );
    expect(await m.say('A race condition between two cache writers that lost updates.')).toBe(
      `Got it, thanks. ${testing!.question}`,
    );
    expect(await m.say('Unit tests with Vitest and integration tests against a local stack.')).toBe(
      'That is helpful, thank you. That was my last question. Thank you very much for your time!',
    );
    expect(await m.say('Thank you, bye!')).toBe('');
    expect(interviewState(prompt, m.transcript)).toMatchObject({ closed: true, covered: [true, true, true] });
  });

  it('"Hi" and "could you repeat that?" never advance: the question comes again, rephrased', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    expect(await m.say('Hi, happy to be here')).toBe(`Nice to meet you. ${project!.rephrased}`);
    expect(await m.say('Sorry, could you repeat that?')).toBe(`Sure. ${project!.question}`);
    expect(await m.say('Sorry, what?')).toBe(`Sure. ${project!.rephrased}`);
    expect(interviewState(prompt, m.transcript)).toMatchObject({
      current: 0,
      phase: 'asked',
      asks: 4,
      covered: [false, false, false],
    });
    expect(await m.say('I led the rewrite of our billing service in Go.')).toBe(
      `Thank you. ${bug!.question}`,
    );
  });

  it('never stalls: a question put four times without an answer is left for the next one', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    await m.say('Hi, happy to be here');
    await m.say('Sorry, could you repeat that?');
    await m.say('Sorry, what?');
    expect(await m.say('How are you?')).toBe(`I'm doing well, thank you. Let's move on. ${bug!.question}`);
    expect(await m.say('Pardon?')).toBe(`Sure. ${bug!.rephrased}`);
  });

  it('back-channels, asides and fragments keep it listening; the answer is what follows', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    for (const line of ['ok', 'Mm-hmm.', 'Sure.', 'Hold on, let me think.', 'So my last project was', 'um']) {
      expect(await m.say(line), line).toBe('');
    }
    expect(interviewState(prompt, m.transcript).current).toBe(0);
    expect(await m.say('a billing service in Go that handles invoices for 3,000 merchants.')).toBe(
      `Thank you. ${bug!.question}`,
    );
  });

  it('an answer said over the question is the answer: it counts, and the bot goes on', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    // Casey answers before the first question is finished (the controller marks the line cut off).
    m.transcript.at(-1)!.text = cutOff(m.transcript.at(-1)!.text);
    expect(await m.say('I built a billing service in Go for 3,000 merchants.')).toBe(
      `Thank you. ${bug!.question}`,
    );
    m.transcript.at(-1)!.text = cutOff(m.transcript.at(-1)!.text);
    expect(await m.say('A race condition between two cache writers that lost updates.')).toBe(
      `Got it, thanks. ${testing!.question}`,
    );
    expect(interviewState(prompt, m.transcript).covered).toEqual([true, true, false]);
    // Never "let me finish".
    expect(m.transcript.filter((u) => u.is_bot && /let me finish/i.test(u.text))).toEqual([]);
  });

  it('"Sure." while a question waits draws no comment; an interruption that gives the floor back gets the question again, as it was', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    await m.say('I built a billing service in Go for 3,000 merchants.');
    // Said over the question, which the bot finished (a back-channel does not stop it).
    expect(await m.say('Sure.')).toBe('');
    expect(await m.say('A race condition between two cache writers.')).toBe(
      `Got it, thanks. ${testing!.question}`,
    );
    // Talked over with no answer in it: the question again, with no comment.
    m.transcript.at(-1)!.text = cutOff(m.transcript.at(-1)!.text);
    expect(await m.say('Sorry to cut in!')).toBe(testing!.question);
    // Cut off before it reached a question (the acknowledgement only): it goes on to that question.
    const m2 = new Meeting(prompt);
    await m2.greet();
    m2.add('I built a billing service in Go for 3,000 merchants.');
    m2.add(cutOff('Thank you.'), true);
    expect(await m2.say('Oh sorry, go on.')).toBe(bug!.question);
    // The greeting itself was cut off before the first question.
    const m3 = new Meeting(prompt);
    m3.add(cutOff("Hello everyone, I'm Iris."), true);
    expect(await m3.say('Hi Iris!')).toBe(
      `Nice to meet you. Let me start with my first question. ${project!.question}`,
    );
  });

  it('a short answer gets exactly one follow-up, then it moves on', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    expect(await m.say('A payments API.')).toBe('Could you give me a concrete example?');
    // Still short after the follow-up: no second follow-up.
    expect(await m.say('It took payments.')).toBe(`Thank you. ${bug!.question}`);
    // A dodge gets its own single follow-up.
    expect(await m.say("I don't know.")).toBe("That's fine. Could you give me an example, even a small one?");
    expect(await m.say('Sorry, could you repeat that?')).toMatch(/^Sure\. Could you /);
    expect(await m.say('Once a deploy broke logins, and we rolled back in ten minutes.')).toBe(
      `Got it, thanks. ${testing!.question}`,
    );
    expect(interviewState(prompt, m.transcript)).toMatchObject({
      current: 2,
      followUps: 0,
      covered: [true, true, false],
    });
  });

  it('a bare "yes" answers a yes/no question (no follow-up) but is a back-channel after a request', async () => {
    const m = new Meeting('Ask: Have you worked with Kafka?\nThen ask about their on-call experience.');
    expect(await m.greet()).toMatch(/Have you worked with Kafka\?$/);
    expect(await m.say('Yes.')).toBe('Thank you. What can you tell me about your on-call experience?');
    const r = new Meeting(prompt);
    await r.greet();
    expect(await r.say('Yes.')).toBe('');
  });

  it('answers "what are the next steps?" with the prompt’s closing, or a neutral line, and goes back to its question', async () => {
    const withClosing = `${prompt} At the end, tell them the recruiter will contact them within a week.`;
    const m = new Meeting(withClosing);
    await m.greet();
    expect(await m.say('What are the next steps?')).toBe(
      `The recruiter will contact you within a week. Now, back to my question. ${project!.rephrased}`,
    );
    await m.say('I built a billing service in Go for 3,000 merchants.');
    await m.say('A race condition between two cache writers that lost updates.');
    expect(await m.say('Unit tests, integration tests and a staging soak test.')).toBe(
      'That is helpful, thank you. That was my last question. The recruiter will contact you within a week. Thank you very much for your time!',
    );
    expect(await m.say('When will I hear back?')).toBe('The recruiter will contact you within a week.');
    expect(await m.say('Could you repeat that?')).toMatch(/^Sure\. That was my last question\./);

    const neutral = new Meeting(prompt);
    await neutral.greet();
    expect(await neutral.say('Before we start: what happens after this interview?')).toBe(
      `The team will follow up with you about next steps. Now, back to my question. ${project!.rephrased}`,
    );
    expect(await neutral.say('Is the role remote?')).toBe(
      `Good question, I'll note it for the team. Now, back to my question. ${project!.question}`,
    );
  });

  it('with no agenda it greets and only listens', async () => {
    const m = new Meeting('Just listen and take notes.');
    expect(await m.greet()).toBe("Hello, I'm Iris. I'll be listening and taking notes.");
    expect(await m.say('What are the next steps?')).toBe('');
    expect(await new Meeting(undefined).say('Hello?')).toBe('');
  });

  it('uses bot_greeting when it reads as a sentence, not when it is an instruction', () => {
    expect(greetingSentence('Hi there, thanks for joining')).toBe('Hi there, thanks for joining.');
    expect(greetingSentence('Greet them warmly and introduce yourself')).toBeNull();
  });
});

describe('local conversation engine: never stalls (the three-question screening)', () => {
  const screening = 'Ask: What is your name? Why do you want this job? What is your biggest strength?';

  it('a name is an answer; after a follow-up and one more turn it moves on; a repeat repeats the follow-up', async () => {
    const m = new Meeting(screening);
    expect(await m.greet()).toBe("Hello, I'm Iris. I have 3 questions for you. What is your name?");
    expect(await m.say('My name is Sam Carter.')).toBe('Thank you. Why do you want this job?');
    expect(await m.say('I like it.')).toBe('Could you say a bit more about that?');
    expect(await m.say('Sorry, could you repeat that?')).toBe('Sure. Could you say a bit more about that?');
    // One more turn after the repeated follow-up: whatever it is, the next question.
    expect(await m.say('Sorry?')).toBe(
      "Sure. Let's move on. What is your biggest strength?".replace('Sure. ', ''),
    );
    expect(await m.say('Testing.')).toBe('Could you go into a little more detail?');
    expect(await m.say('What are the next steps?')).toBe(
      'The team will follow up with you about next steps. That was my last question. Thank you very much for your time, Sam!',
    );
    expect(interviewState(screening, m.transcript)).toMatchObject({
      closed: true,
      covered: [true, true, true],
    });
  });

  it.each([
    ['What is your name?', 'Sam.'],
    ['Have you worked with Kafka?', 'Yes.'],
    ['Do you need a visa?', 'No, I do not.'],
    ['How many years of Python do you have?', 'Five.'],
    ['How long is your notice period?', 'Two weeks.'],
    ['When could you start?', 'In March.'],
    ['What date works for an onsite?', 'The 14th.'],
    ['Where are you based?', 'Berlin.'],
    ['Which city would you work from?', 'Lisbon.'],
  ])('"%s" answered "%s": no follow-up', async (question, answer) => {
    const m = new Meeting(`Ask: ${question} Why do you want this job?`);
    expect(await m.greet()).toMatch(new RegExp(`${question.replace('?', '\\?')}$`));
    expect(await m.say(answer)).toBe('Thank you. Why do you want this job?');
  });

  it('a dodged fact is left at that; an open question still gets its one follow-up', async () => {
    const m = new Meeting('Ask: What salary do you expect? Why do you want this job?');
    await m.greet();
    expect(await m.say("I'd rather not say.")).toBe('No problem. Why do you want this job?');
    expect(await m.say('Money.')).toBe('Could you say a bit more about that?');
  });

  it('the close thanks the one person by their display name, or everyone', async () => {
    const one = new Meeting(screening);
    one.people = ['Sam Carter'];
    expect(await one.greet()).toMatch(/^Hello Sam, I'm Iris\./);
    await one.say('Sam Carter.');
    await one.say('I want to build data pipelines that people rely on every day.');
    expect(
      await one.say('Debugging slow Spark jobs, for example cutting a job from 3 hours to 40 minutes.'),
    ).toMatch(/That was my last question\. Thank you very much for your time, Sam!$/);
    const two = new Meeting(screening);
    two.people = ['Sam Carter', 'Dana Lee'];
    expect(await two.greet()).toMatch(/^Hello everyone, I'm Iris\./);
    await two.say('Sam Carter.');
    await two.say('I want to build data pipelines that people rely on every day.');
    expect(
      await two.say('Debugging slow Spark jobs, for example cutting a job from 3 hours to 40 minutes.'),
    ).toMatch(/Thank you all for your time!$/);
    // Nobody's display name known: the name they gave when asked.
    const unnamed = new Meeting(screening);
    await unnamed.greet();
    await unnamed.say('My name is Sam Carter.');
    await unnamed.say('I want to build data pipelines that people rely on every day.');
    expect(
      await unnamed.say('Debugging slow Spark jobs, for example cutting one from 3 hours to 40 minutes.'),
    ).toMatch(/Thank you very much for your time, Sam!$/);
  });
});

describe('local conversation engine: state derived from the transcript', () => {
  const script = [
    'Hi, happy to be here',
    'Sorry, could you repeat that?',
    'A payments API.',
    'It settled card payments for 3,000 merchants every night.',
    'What are the next steps?',
    'A race condition between two cache writers that lost updates.',
    'Mm-hmm.',
    'Unit tests with Vitest and integration tests against a local stack.',
  ];

  it('a fresh engine at any point says what the first one would (a replaced bot-task)', async () => {
    const kept = new Meeting(prompt);
    const replaced = new Meeting(prompt);
    await kept.greet();
    await replaced.greet();
    for (const line of script) {
      replaced.replaceEngine();
      expect(await replaced.say(line)).toBe(await kept.say(line));
    }
    expect(replaced.transcript.map((u) => u.text)).toEqual(kept.transcript.map((u) => u.text));
  });

  it('reads the transcript as the store keeps it: a bot turn as one line, or as the room transcribed it', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    for (const line of script.slice(0, 4)) await m.say(line);
    // The same conversation with each bot turn merged into one utterance, lower-cased and without punctuation.
    const merged: Utterance[] = [];
    for (const u of m.transcript) {
      const prev = merged.at(-1);
      if (u.is_bot && prev?.is_bot) prev.text += ` ${u.text}`;
      else merged.push({ ...u });
    }
    for (const u of merged) if (u.is_bot) u.text = u.text.toLowerCase().replace(/[?.!,]/g, '');
    const a = interviewState(prompt, m.transcript);
    const b = interviewState(prompt, merged);
    expect(b).toMatchObject({
      current: a.current,
      phase: a.phase,
      followUps: a.followUps,
      covered: a.covered,
    });
    expect(a).toMatchObject({ current: 1, phase: 'asked', followUps: 0, covered: [true, false, false] });
  });

  it('a first greeting after the recording notice greets and asks the first question (no rejoining apology)', async () => {
    const m = new Meeting(prompt);
    m.add('This meeting is being recorded.', true);
    expect(await m.greet()).toBe(`Hello, I'm Iris. I have 3 questions for you. ${project!.question}`);
  });

  it('a replaced bot-task greets by resuming the pending question, and says nothing after the closing', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    await m.say('I built a billing service in Go for 3,000 merchants.');
    m.replaceEngine();
    expect(await m.greet()).toBe(`Sorry, I lost my connection for a moment. ${bug!.rephrased}`);
    await m.say('A race condition between two cache writers that lost updates.');
    await m.say('Unit tests with Vitest and integration tests against a local stack.');
    m.replaceEngine();
    expect(await m.greet()).toBe('');
  });

  it('a replaced bot-task takes an answer given while it was away, after its apology', async () => {
    const m = new Meeting(prompt);
    await m.greet();
    // The lost bot heard the answer but never replied.
    m.add('I built a billing service in Go for 3,000 merchants.');
    m.replaceEngine();
    expect(await m.greet()).toBe(`Sorry, I lost my connection for a moment. Thank you. ${bug!.question}`);
  });

  // Its time per turn on such a meeting is measured by the conversation benchmark (npm run bench -- conversation).
  it('follows a long meeting: twenty topics, small talk in between, each topic asked once in order', async () => {
    const topics = Array.from(
      { length: 20 },
      (_, i) => `${i + 1}. What did you learn in project number ${i + 1}?`,
    );
    const long = `Ask these questions:\n${topics.join('\n')}`;
    const m = new Meeting(long);
    await m.greet();
    // Two hours of talk before the questions start (the bot was listening to others).
    for (let i = 0; i < 1500; i++)
      m.add(`Background chatter line ${i} about the quarterly roadmap and hiring.`);
    m.add(`As I was saying: ${agendaOf(long).topics[0]!.question}`, true);
    for (let i = 0; i < 20; i++) {
      expect(await m.say('Hi again!')).not.toBe('');
      const reply = await m.say(
        `In project ${i + 1} I learned to measure before optimising, with real numbers.`,
      );
      expect(reply).toMatch(i < 19 ? new RegExp(`project number ${i + 2}\\?$`) : /That was my last question/);
    }
    expect(interviewState(long, m.transcript).covered.every(Boolean)).toBe(true);
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

// lineKind: what a participant's words are when they are not an answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isDodge,
  isFragment,
  type LineKind,
  lineKind,
} from '../../core/engines/rules/conversation/small-talk';

const cases: [string, LineKind][] = [
  ['Hi', 'greeting'],
  ['Hi, happy to be here', 'greeting'],
  ["Hello, I'm Casey.", 'greeting'],
  // The bot's own greetings, with a name and a role: never an answer to someone's question.
  ["Hello Ivy, I'm Meeting Bot.", 'greeting'],
  ["Hello Sam, I'm Iris, the screening assistant.", 'greeting'],
  ['Hi, I am Sam Carter and I built the billing service in Go.', 'answer'],
  ['Good morning everyone, thanks for having me.', 'greeting'],
  ['How are you?', 'greeting'],
  ['ok', 'back-channel'],
  ['Mm-hmm.', 'back-channel'],
  ['Sure, go ahead.', 'back-channel'],
  ['Sorry to cut in!', 'back-channel'],
  ['Sorry, could you repeat that?', 'repeat-request'],
  ['Sorry, what?', 'repeat-request'],
  ["I didn't catch the question.", 'repeat-request'],
  ['What are the next steps?', 'next-steps'],
  ['When will I hear back?', 'next-steps'],
  ['Is the role remote?', 'question'],
  ['So my last project was', 'fragment'],
  ['We decided to', 'fragment'],
  ['I think the main reason was the, um', 'fragment'],
  ['Hold on, let me think.', 'aside'],
  ["That's a good question.", 'aside'],
  ['I like solving problems for people.', 'answer'],
  ['A race condition.', 'answer'],
  ['I built a billing system in Go. Does that answer it?', 'answer'],
  ['We had to repeat the migration twice because of a bug', 'answer'],
  ["That's what it was", 'answer'],
  ['Hi, my last project was a billing system in Go for a fintech.', 'answer'],
  ['we tested it', 'answer'],
];

describe('lineKind', () => {
  it.each(cases)('%j is %s', (text, kind) => {
    expect(lineKind(text)).toBe(kind);
  });

  it('a bare "yes" answers a yes/no question, and is a back-channel after a request', () => {
    expect(lineKind('Yes.', { question: 'Have you worked with Kafka?' })).toBe('answer');
    expect(lineKind('Yes.', { question: 'Could you tell me about your last project?' })).toBe('back-channel');
  });

  it('dodges and fragments', () => {
    expect(isDodge("I don't know.")).toBe(true);
    expect(isDodge("I'd rather not say.")).toBe(true);
    expect(isDodge('I know Go and Rust well.')).toBe(false);
    expect(isFragment('um')).toBe(true);
    expect(isFragment('A billing system.')).toBe(false);
  });

  it('never throws and always names a kind', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (t) => {
        expect(typeof lineKind(t)).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});

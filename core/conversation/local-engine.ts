// The embedded conversation engine (no model): greets, asks the questions found in bot_prompt one at a time,
// acknowledges each answer briefly, and closes politely; with no questions it greets and listens.
import type { ConversationContext, ConversationEngine } from '../ports/conversation-engine';

const acknowledgements = [
  'Thank you.',
  'Got it, thanks.',
  'That is helpful, thank you.',
  'Great, thanks.',
  'Understood.',
];

/** The questions in a prompt: sentences ending in "?" and list items ("1. …", "- …"), in order. */
export function questionsIn(prompt: string | undefined): string[] {
  if (!prompt) return [];
  const out: string[] = [];
  for (const rawLine of prompt.split(/\r?\n/)) {
    const line = rawLine.trim();
    const item = /^(?:\d+[.)]|[-*•])\s+(.+)$/.exec(line);
    if (item) {
      out.push(asQuestion(item[1]!));
      continue;
    }
    for (const m of line.matchAll(/[^.!?]*\?/g)) {
      // Drop an instruction lead-in: "Ask: what …?" / "Ask them what …?"
      const q = m[0].trim().replace(/^(?:ask(?: them| the candidate)?[:,]?\s+)/i, '');
      if (q.split(/\s+/).length >= 3) out.push(capitalise(q));
    }
  }
  return [...new Set(out)];
}

function asQuestion(text: string): string {
  const t = capitalise(text.trim().replace(/[.;:]$/, ''));
  return /[?]$/.test(t) ? t : `${t}?`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** bot_greeting read as a sentence to say, or null when it is an instruction ("Greet them warmly"). */
export function greetingSentence(greeting: string | undefined): string | null {
  const g = greeting?.trim();
  if (!g) return null;
  if (/^(greet|say|introduce|welcome them|be |start by|begin by|tell them)/i.test(g)) return null;
  return /[.!?]$/.test(g) ? g : `${g}.`;
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}

async function* nothing(): AsyncIterable<string> {}

export class LocalConversationEngine implements ConversationEngine {
  greet(ctx: ConversationContext): AsyncIterable<string> {
    const hello = greetingSentence(ctx.greeting) ?? `Hello everyone, I'm ${ctx.botName}.`;
    const questions = questionsIn(ctx.prompt);
    if (questions.length === 0) return once(`${hello} I'll be listening and taking notes.`);
    return once(
      `${hello} I have ${questions.length === 1 ? 'one question' : `${questions.length} questions`} for you. ${questions[0]}`,
    );
  }

  reply(ctx: ConversationContext): AsyncIterable<string> {
    const questions = questionsIn(ctx.prompt);
    if (questions.length === 0) return nothing();
    const botLines = ctx.transcript.filter((u) => u.is_bot).map((u) => u.text);
    // Which questions the bot has asked so far: the last one it said decides what comes next.
    let asked = 0;
    for (const line of botLines) {
      for (let i = asked; i < questions.length; i++) {
        if (line.includes(questions[i]!)) asked = i + 1;
      }
    }
    const closed = botLines.some((l) => l.includes('That was my last question'));
    if (closed) return nothing();
    const last = ctx.transcript.at(-1);
    if (!last || last.is_bot) return nothing();
    // Talked over before the first question was out: ask it now.
    if (asked === 0) return once(`Let me start with my first question. ${questions[0]}`);
    const ack = acknowledgements[(asked - 1) % acknowledgements.length]!;
    if (asked < questions.length) return once(`${ack} ${questions[asked]}`);
    return once(`${ack} That was my last question. Thank you very much for your time!`);
  }
}

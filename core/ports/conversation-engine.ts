// Port: what the bot says — its greeting and its replies, following bot_prompt (Bedrock in AWS, rules locally).
import type { Utterance } from '../bots/transcript';

export interface ConversationContext {
  botName: string;
  /** bot_config.bot_prompt: the bot's instructions (an interviewer's questions, a role). */
  prompt?: string;
  /** bot_config.bot_greeting: how it greets. */
  greeting?: string;
  /**
   * Display names of the people in the room now (the bot and other bots left out): the greeting says "everyone" only
   * to more than one, and calls one person by name. Undefined when not known.
   */
  participants?: readonly string[];
  /** The conversation so far, oldest first; the bot's own lines have `is_bot`. */
  transcript: readonly Utterance[];
}

export interface ConversationEngine {
  /** The opening line, streamed in chunks (speech starts with the first sentence). */
  greet(ctx: ConversationContext): AsyncIterable<string>;
  /** The reply after a participant finished speaking; yields nothing when the bot should keep listening. */
  reply(ctx: ConversationContext): AsyncIterable<string>;
}

/** Splits streamed text into sentences as they complete, so each can be spoken while the rest is generated. */
export async function* sentences(chunks: AsyncIterable<string>): AsyncIterable<string> {
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += chunk;
    // A sentence is complete once its end mark is followed by white space ("3." of "3.5" is not).
    for (let m = /[.!?…]+["')\]]*\s+/.exec(buffer); m; m = /[.!?…]+["')\]]*\s+/.exec(buffer)) {
      const sentence = buffer.slice(0, m.index + m[0].length).trim();
      buffer = buffer.slice(m.index + m[0].length);
      if (sentence) yield sentence;
    }
  }
  const rest = buffer.trim();
  if (rest) yield rest;
}

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
  /**
   * This bot replaces one lost mid-conversation: the bot knows it from its own state (the session's bot lines said
   * before this process started), never from how the transcript looks — a recording notice is a bot line too.
   */
  rejoining?: boolean;
  /**
   * The person left their thought unfinished (the engine said so through `onUnfinished`) and has been silent since, past
   * the wait for it: the engine answers now and does not judge the turn again, so the bot never goes silent for good.
   */
  stoppedMidThought?: boolean;
  /**
   * A reply's engine that judges the meaning calls this when the person has not finished (cut off mid-thought:
   * `short`, more within seconds; thinking or asked for time: `long`); it then yields nothing. Engines that do not
   * judge (the rules engines) never call it.
   */
  onUnfinished?: (wait: UnfinishedTurn) => void;
}

/** How long a person who has not finished probably needs: a few seconds (`short`) or time to think (`long`). */
export type UnfinishedTurn = 'short' | 'long';

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

/** A piece of a reply for the voice: a sentence, or the first sentence's opening clause (`continues`). */
export interface SpokenPiece {
  text: string;
  /** The opening clause of a sentence whose rest is the next piece: one line to the listener and the transcript. */
  continues?: true;
}

/** The words an opening clause needs to be spoken on its own ("Thank you,"; not a lone "So," or "Well,"). */
const clauseMinWords = 2;

/**
 * Like `sentences`, but the reply's first sentence is split at its first clause ("Thank you, that is helpful." →
 * "Thank you," then "that is helpful."), yielded as soon as the clause mark arrives (after a number, once the white
 * space after it has): the voice starts on a few words instead of waiting for the whole sentence. Only the first
 * sentence is split; later ones are already being written while the first plays. A sentence that arrives whole is not
 * split.
 */
export async function* replyPieces(chunks: AsyncIterable<string>): AsyncIterable<SpokenPiece> {
  let buffer = '';
  let first = true;
  const sentenceEnd = /[.!?…]+["')\]]*\s+/;
  // A clause mark followed by white space, or after a letter at the end of what has arrived: models stream the white
  // space with the next word (" that"), and a comma after a letter is no thousands separator ("1,000").
  const clauseEnd = /[,;:]\s+|(?<=\p{L})[,;:]$/gu;
  for await (const chunk of chunks) {
    buffer += chunk;
    for (;;) {
      const end = sentenceEnd.exec(buffer);
      // Split only while the sentence is still being written: a sentence that arrived whole is spoken whole.
      if (first && !end) {
        clauseEnd.lastIndex = 0;
        for (let m = clauseEnd.exec(buffer); m; m = clauseEnd.exec(buffer)) {
          const clause = buffer.slice(0, m.index + 1).trim();
          if (clause.split(/\s+/).length < clauseMinWords) continue;
          buffer = buffer.slice(m.index + m[0].length);
          first = false;
          yield { text: clause, continues: true };
          break;
        }
        if (!first) continue;
      }
      if (!end) break;
      const sentence = buffer.slice(0, end.index + end[0].length).trim();
      buffer = buffer.slice(end.index + end[0].length);
      if (sentence) {
        first = false;
        yield { text: sentence };
      }
    }
  }
  const rest = buffer.trim();
  if (rest) yield { text: rest };
}

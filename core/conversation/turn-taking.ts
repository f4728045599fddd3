// End of turn: how long the bot lets a participant's silence run before it answers, read from the words they said last
//. A fixed wait answers a finished question as late as a sentence cut off at "and"; here a finished
// sentence is answered after a short wait, words that cannot end a thought get a long one, and anything unclear gets
// the fixed wait the bot always had. The shape follows Vapi's smart endpointing (a short wait on punctuation, a long
// one without, a middle one after a number: https://docs.vapi.ai/customization/voice-pipeline-configuration,
// onPunctuationSeconds 0.1 / onNoPunctuationSeconds 1.5 / onNumberSeconds 0.5); the defaults are ours, see
// docs/voice-latency.md. Given what was asked and the answer so far (`context`), the meaning decides first: an answer
// that has not yet answered waits the long silence after a finished sentence too, one that hands the turn back the
// short one (core/conversation/answer-completeness.ts).
import { answerState, type TurnContext } from './answer-completeness';

export interface TurnTakingSettings {
  /**
   * `adaptive` reads the words (below); `fixed` always waits `unclearMs` (the old fixed rule, for a deployment
   * that wants it back).
   */
  mode: 'adaptive' | 'fixed';
  /** Words that end a thought: a sentence mark after a word that can end one (END_OF_TURN_COMPLETE_MS). */
  completeMs: number;
  /** Neither clearly finished nor clearly cut off: no sentence mark (END_OF_TURN_SILENCE_MS, the old fixed wait). */
  unclearMs: number;
  /** Words that cannot end a thought: "and", "the", "um", a trailing comma (END_OF_TURN_INCOMPLETE_MS). */
  incompleteMs: number;
  /**
   * In `adaptive` mode, the answer's meaning (what was asked, what has been said since: answer-completeness.ts)
   * decides before its last words do; false reads the words alone (the benchmark's comparison). Default true.
   */
  meaning?: boolean;
}

export const turnTakingDefaults: TurnTakingSettings = {
  mode: 'adaptive',
  completeMs: 250,
  unclearMs: 700,
  incompleteMs: 1_500,
};

export type Ending = 'complete' | 'unclear' | 'incomplete';

/**
 * Words after which an English sentence goes on: conjunctions, articles, determiners, prepositions, auxiliaries,
 * fillers. Without a sentence mark after them the speaker was mid-sentence.
 */
const continuing = new Set(
  (
    'and or but so because since although though while whereas if unless until than that which who whom whose ' +
    'where when whether the a an this these those my your his her its our their some any every each no ' +
    'of to in on at by for with from into onto about over under between through during after before without ' +
    'as like is are was were be been being am do does did have has had will would can could should shall may ' +
    'might must not also just very really quite more most less um uh erm er hmm then plus i we you they he she'
  ).split(/\s+/),
);

/**
 * The ones no sentence ends with, even when the transcription put a period after them at a pause ("and the."). Other
 * words of the list above end sentences often enough ("I logged in.", "That is all I have to say about."): a period
 * after them is believed, as is any "?" or "!" ("Where are you from?", "Sorry to cut in!").
 */
const neverLast = new Set(
  (
    'and or but because although though whereas unless than the a an my your his her our their every ' +
    'of with from into onto between um uh erm er'
  ).split(/\s+/),
);

/** How the words end: the wait the bot leaves before answering depends on it. */
export function endingOf(text: string): Ending {
  const trimmed = text.trim();
  if (!trimmed) return 'unclear';
  // A trailing comma, dash, colon, semicolon or an ellipsis: the speaker was mid-sentence.
  if (/(,|;|:|-|–|—|\.\.\.|…)["')\]]*$/.test(trimmed)) return 'incomplete';
  const words = trimmed.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const last = words.at(-1) ?? '';
  if (/[?!]["')\]]*$/.test(trimmed)) return 'complete';
  const period = /\.["')\]]*$/.test(trimmed);
  if (neverLast.has(last) || (!period && continuing.has(last))) return 'incomplete';
  // A number read out in parts ("my number is 0171.") is often punctuated before it is finished.
  if (/^\d/.test(last)) return 'unclear';
  return period ? 'complete' : 'unclear';
}

/** The rule reads the answer's meaning: only then is the context (turnContextOf) worth building for it. */
export function readsMeaning(settings: TurnTakingSettings): boolean {
  return settings.mode !== 'fixed' && settings.meaning !== false;
}

/**
 * The silence (ms) to wait after `text`, the last words heard, before the bot answers; `context` is what was asked
 * and the answer so far (read unless settings.meaning is false).
 */
export function endOfTurnWaitMs(text: string, settings: TurnTakingSettings, context?: TurnContext): number {
  if (settings.mode === 'fixed') return settings.unclearMs;
  const ending = endingOf(text);
  // Words that cannot end a thought wait the long silence whatever the answer means.
  if (context && readsMeaning(settings) && ending !== 'incomplete')
    switch (answerState(context)) {
      case 'open':
        return settings.incompleteMs;
      case 'done':
        return settings.completeMs;
      case 'unclear':
        break;
    }
  switch (ending) {
    case 'complete':
      return settings.completeMs;
    case 'incomplete':
      return settings.incompleteMs;
    case 'unclear':
      return settings.unclearMs;
  }
}

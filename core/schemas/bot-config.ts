// bot_config of the start request: how the bot looks, sounds and behaves, and when it leaves on its own.
import { z } from 'zod';
import { transcriptionLanguages } from '../transcription-languages';
import { defaultVoice, voiceIds } from '../voices';
import { limits, prompt } from './api';

/** What the bot says and posts when it starts recording, unless bot_config says otherwise. */
export const defaultRecordingNotice = 'This meeting is being recorded.';

/**
 * Bounds of each bot_config.automatic_leave member, in seconds. Their defaults are the deployment's
 * configuration (core/config.ts), filled in by the join (core/bots/automatic-leave.ts), not by this schema.
 */
export const automaticLeaveBounds = {
  everyone_left_timeout_seconds: { min: 0, max: 3600 },
  silence_timeout_seconds: { min: 10, max: 86_400 },
  waiting_room_timeout_seconds: { min: 10, max: 3600 },
  max_duration_seconds: { min: 60, max: limits.maxDurationSeconds },
} as const;

/** An optional whole number of seconds within the bounds of `key`, one message for every way it can be wrong. */
function seconds(key: keyof typeof automaticLeaveBounds, meaning: string) {
  const { min, max } = automaticLeaveBounds[key];
  const range = `must be a whole number of seconds from ${min} to ${max}`;
  return z.number({ error: range }).int(range).min(min, range).max(max, range).optional().describe(meaning);
}

export const automaticLeaveSchema = z
  .strictObject({
    everyone_left_timeout_seconds: seconds(
      'everyone_left_timeout_seconds',
      'Once the last participant has left, the bot waits this long before it leaves (participant_left); anyone who joins meanwhile, such as a participant whose connection dropped, keeps the session going. Default 2.',
    ),
    silence_timeout_seconds: seconds(
      'silence_timeout_seconds',
      'The bot leaves (idle_timeout) after this long without audio from anyone but itself. Default 300.',
    ),
    waiting_room_timeout_seconds: seconds(
      'waiting_room_timeout_seconds',
      'How long the bot waits in a waiting room to be let in before it gives up (bot_join_failed). Default 600.',
    ),
    max_duration_seconds: seconds(
      'max_duration_seconds',
      'Safety cap: the bot leaves with exit_reason max_duration this long after it got in. Default 14400.',
    ),
  })
  .describe(
    "When the bot leaves on its own. Members left out take the deployment's defaults (docs/configuration.md).",
  );

export const botConfigSchema = z
  .strictObject({
    bot_prompt: prompt('Instruction prompt for the bot (its questions, its role).').optional(),
    name: z
      .string()
      .trim()
      .min(1)
      .max(limits.nameChars)
      .default('Meeting Bot')
      .describe('Display name of the bot.'),
    video_mode: z
      .enum(['static', 'off'])
      .default('static')
      .describe('static: one still tile (background_image_url or a generated name card); off: no video.'),
    background_image_url: z
      .url({ protocol: /^https?$/ })
      .max(limits.urlChars)
      .optional()
      .describe('https URL of the image shown as the bot tile (PNG, JPEG, WebP or GIF, at most 5 MB).'),
    bot_greeting: prompt('How the bot greets participants; a sentence is spoken as written.').optional(),
    stop_phrase: z
      .string()
      .trim()
      .min(1)
      .max(limits.stopPhraseChars)
      .optional()
      .describe('Phrase that makes the bot leave when a participant says it.'),
    voice: z
      .enum(voiceIds)
      .default(defaultVoice)
      .describe('Amazon Polly voice id (see docs/api.md, "Voices").'),
    language: z
      .enum(transcriptionLanguages, {
        error: `must be one of the supported transcription languages: ${transcriptionLanguages.join(', ')}`,
      })
      .optional()
      .describe(
        'Language the room is transcribed in (a Deepgram code, docs/api.md, "Transcription languages"). Default: the ' +
          "voice's language (en-US for Joanna, fr for Lea), or en.",
      ),
    recording_notice: z
      .boolean()
      .optional()
      .describe(
        'With recording.audio: the bot says recording_notice_text when it starts recording and posts it as a chat ' +
          'message (it is in the transcript). Default true; false: no notice (the customer tells the participants).',
      ),
    recording_notice_text: z
      .string()
      .trim()
      .min(1)
      .max(limits.recordingNoticeChars)
      .optional()
      .describe(`The recording notice, said and posted as written. Default: "${defaultRecordingNotice}"`),
    automatic_leave: automaticLeaveSchema.optional(),
    max_duration_seconds: seconds(
      'max_duration_seconds',
      'The older name of automatic_leave.max_duration_seconds, still accepted; giving both with different values is refused.',
    ),
  })
  .superRefine((c, ctx) => {
    const alias = c.max_duration_seconds;
    const own = c.automatic_leave?.max_duration_seconds;
    if (alias !== undefined && own !== undefined && alias !== own) {
      ctx.addIssue({
        code: 'custom',
        path: ['max_duration_seconds'],
        message: `is ${alias} but bot_config.automatic_leave.max_duration_seconds is ${own}; give one of them (max_duration_seconds is its older name)`,
      });
    }
  })
  .describe('How the bot looks, sounds and behaves. Every member has a default.');

/** bot_config as a start request gives it: automatic_leave partial, the alias max_duration_seconds maybe set. */
export type BotConfigRequest = z.infer<typeof botConfigSchema>;

/** Every leave setting resolved, in seconds (a deployment default from milliseconds may be fractional). */
export type AutomaticLeave = { [K in keyof typeof automaticLeaveBounds]: number };

/**
 * bot_config as a session stores it and the bot reads it: the request's, with automatic_leave complete (the
 * deployment's defaults filled in and the alias folded into it, core/bots/automatic-leave.ts).
 */
export type BotConfig = Omit<BotConfigRequest, 'automatic_leave' | 'max_duration_seconds'> & {
  automatic_leave: AutomaticLeave;
};

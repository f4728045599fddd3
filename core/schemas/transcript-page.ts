// The query and the reply of `GET /api/bot/{bot_id}/transcript`: the transcript a page at a time.
import { z } from 'zod';
import { liveUtteranceSchema } from '../events/registry';
import { botStatuses } from './api';

export const transcriptPageLimits = { defaultLimit: 100, maxLimit: 1000 } as const;

/**
 * A whole number in a query string, digits only: `Number()` (z.coerce) would also take '', ' 5', '1e3' and '0x10',
 * which a client sends only by mistake.
 */
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,16}$/, 'must be a whole number, in digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const transcriptPageQuerySchema = z.strictObject({
  after_seq: wholeNumber(0, Number.MAX_SAFE_INTEGER)
    .default(0)
    .describe(
      'Return the utterances after this seq (default 0: from the first). Pass next_after_seq to go on.',
    ),
  limit: wholeNumber(1, transcriptPageLimits.maxLimit)
    .default(transcriptPageLimits.defaultLimit)
    .describe(
      `Utterances per page, 1-${transcriptPageLimits.maxLimit} (default ${transcriptPageLimits.defaultLimit}).`,
    ),
});
export type TranscriptPageQuery = z.infer<typeof transcriptPageQuerySchema>;

export const transcriptPageSchema = z
  .strictObject({
    bot_id: z.uuid(),
    status: z
      .enum(botStatuses)
      .describe(
        'The session when the page was read: while running, later polls may bring more lines; completed or ' +
          'failed, the transcript is final.',
      ),
    utterances: z
      .array(liveUtteranceSchema)
      .describe(
        'The utterances after after_seq, in order, at most limit; the same lines transcript.data carries.',
      ),
    next_after_seq: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe(
        'Pass as after_seq for the next page; null when this page reaches the newest saved line (while running, ' +
          'poll again later with the last seq received).',
      ),
    last_seq: z
      .number()
      .int()
      .min(0)
      .describe(
        'The seq of the newest saved utterance (0 when none yet): how long the transcript is so far.',
      ),
  })
  .describe("A page of a bot's transcript: every final utterance saved so far, numbered by seq from 1.");
export type TranscriptPage = z.infer<typeof transcriptPageSchema>;

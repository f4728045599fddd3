// Use case: a bot's transcript a page at a time by `seq`, so a client can follow it without webhooks.
import type { Caller } from '../accounts/authenticate';
import type { ServiceDeps } from '../deps';
import type { LiveUtterance } from '../events/registry';
import type { BotStatus } from '../schemas/api';
import {
  type TranscriptPage,
  type TranscriptPageQuery,
  transcriptPageQuerySchema,
} from '../schemas/transcript-page';
import { parseOrThrow } from '../schemas/validate';
import { findOwnSession } from './get-status';
import type { Utterance } from './transcript';

/**
 * The page of `lines` (the whole transcript, in order) after `after_seq`. An utterance's seq is its 1-based position
 * in the session's transcript (every task's lines merged, TranscriptStore.load), the numbering transcript.data uses too.
 */
export function transcriptPage(
  botId: string,
  status: BotStatus,
  lines: readonly Utterance[],
  query: TranscriptPageQuery,
): TranscriptPage {
  const from = Math.min(query.after_seq, lines.length);
  const to = Math.min(from + query.limit, lines.length);
  const utterances: LiveUtterance[] = lines.slice(from, to).map((u, i) => ({
    speaker: u.speaker,
    participant_id: u.participant_id,
    text: u.text,
    started_at: u.started_at,
    seq: from + i + 1,
    is_bot: u.is_bot ?? false,
  }));
  return {
    bot_id: botId,
    status,
    utterances,
    next_after_seq: to < lines.length ? to : null,
    last_seq: lines.length,
  };
}

export async function getTranscriptPage(
  deps: ServiceDeps,
  caller: Caller,
  rawBotId: string | undefined,
  rawQuery: Record<string, string | undefined> | undefined,
): Promise<TranscriptPage> {
  const query = parseOrThrow(transcriptPageQuerySchema, rawQuery ?? {});
  const session = await findOwnSession(deps, caller, rawBotId);
  // The session is read before the lines: a page that says completed or failed then holds every line, since the bot
  // saves its last segment before its session ends. Only the segments saved since this process last read them are read.
  const { lines } = await deps.transcriptCache.read(session, deps.now().getTime(), 0);
  return transcriptPage(session.botId, session.status, lines, query);
}

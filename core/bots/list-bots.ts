// Use case: the caller's bots, newest first, a page at a time (an addition to the spec, as in Recall.ai's API).
import type { Caller } from '../accounts/authenticate';
import type { ServiceDeps } from '../deps';
import { ApiError } from '../errors';
import { type BotListView, listBotsQuerySchema } from '../schemas/list-views';
import { parseOrThrow } from '../schemas/validate';
import { toBotSummary } from './session';

interface Position {
  createdAt: string;
  botId: string;
}

/**
 * The cursor names the last bot of a page (creation time and id), base64url-encoded. It only positions a query
 * inside the caller's own list, so a cursor made up or taken from another account shows nothing of anyone else.
 */
export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.createdAt, p.botId])).toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  try {
    const [createdAt, botId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof createdAt === 'string' &&
      !Number.isNaN(Date.parse(createdAt)) &&
      typeof botId === 'string' &&
      /^[0-9a-f-]{36}$/.test(botId)
    ) {
      return { createdAt, botId };
    }
  } catch {}
  throw new ApiError('validation_error', 'cursor: not a next_cursor this API returned');
}

export async function listBots(
  deps: ServiceDeps,
  caller: Caller,
  query: Record<string, string | undefined> | undefined,
): Promise<BotListView> {
  const q = parseOrThrow(listBotsQuerySchema, query ?? {});
  const { sessions, next } = await deps.sessions.listForAccount(caller.accountId, {
    limit: q.limit,
    status: q.status,
    before: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
  });
  return { bots: sessions.map(toBotSummary), next_cursor: next ? encodeCursor(next) : null };
}

// The token the bot joins a Daily room with. Starting transcription needs canAdmin: ['transcription']: for a room of
// the service's own Daily domain the bot mints such a token with DAILY_API_KEY; otherwise, or when Daily's REST API
// fails, it joins with the caller's meeting_token as given.

import type { Logger } from '../../../core/log';
import { roomNameOf } from '../../../core/schemas/start-request';

export interface DailyApiSettings {
  /** The service's Daily REST API key; without it the caller's token is used as given. */
  apiKey?: string;
  apiUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface TokenRequest {
  roomUrl: string;
  botName: string;
  callerToken?: string;
  /** How long the minted token stays valid (the bot's max duration plus a margin). */
  validForSeconds: number;
  now?: Date;
}

export async function botMeetingToken(
  settings: DailyApiSettings,
  request: TokenRequest,
  log: Logger,
): Promise<string | undefined> {
  const roomName = roomNameOf('daily', request.roomUrl);
  if (!settings.apiKey || !roomName) return request.callerToken;
  const call = (path: string, init: RequestInit = {}) =>
    (settings.fetch ?? fetch)(`${settings.apiUrl.replace(/\/$/, '')}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${settings.apiKey}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(settings.timeoutMs ?? 5000),
    });
  try {
    const room = await call(`/rooms/${encodeURIComponent(roomName)}`);
    if (room.status === 404) return request.callerToken; // not a room of our domain
    if (!room.ok) throw new Error(`GET room: HTTP ${room.status}`);
    const { url } = (await room.json()) as { url?: string };
    // Room names are per domain: a room of the same name in our domain is not the caller's room.
    if (!url || new URL(url).host !== new URL(request.roomUrl).host) return request.callerToken;
    const now = request.now ?? new Date();
    const minted = await call('/meeting-tokens', {
      method: 'POST',
      body: JSON.stringify({
        properties: {
          room_name: roomName,
          user_name: request.botName,
          exp: Math.floor(now.getTime() / 1000) + request.validForSeconds,
          permissions: { canAdmin: ['transcription'] },
        },
      }),
    });
    if (!minted.ok) throw new Error(`POST meeting-tokens: HTTP ${minted.status}`);
    const { token } = (await minted.json()) as { token?: string };
    if (!token) throw new Error('POST meeting-tokens: no token in the answer');
    return token;
  } catch (err) {
    log.warn("could not mint the bot's Daily token; joining with the caller's token", {
      err: err instanceof Error ? err.message : String(err),
    });
    return request.callerToken;
  }
}

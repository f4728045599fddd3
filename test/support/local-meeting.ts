// Test helper: a bot joined to a new room of a test stack's local room server, and the scripted people it meets.
import { eventNames } from '../../core/events/registry';
import type { ScriptedParticipant } from '../../local/room/room-server';
import type { TestResponse, TestStack } from './local-stack';
import { until } from './until';
import { webhookReceiver } from './webhook-receiver';

/** Creates the local room `room`; `options` are the room's (knocking, private, transcription_error…). */
export async function createRoom(stack: TestStack, room: string, options: Record<string, unknown> = {}) {
  const created = await fetch(`${stack.baseUrl}/rooms`, {
    method: 'POST',
    body: JSON.stringify({ name: room, ...options }),
  });
  if (created.status !== 201) throw new Error(`room ${room} not created: ${created.status}`);
}

/** Asks the API (with `key`) for a bot in local room `room`, the join body's other fields from `body`; 201 or throws. */
export async function joinBot(
  stack: TestStack,
  key: string,
  room: string,
  body: Record<string, unknown> = {},
): Promise<{ botId: string; join: TestResponse }> {
  const join = await stack.request('POST', '/api/bot/join', {
    key,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/${room}`, ...body },
  });
  if (join.status !== 201) throw new Error(`join answered ${join.status}: ${JSON.stringify(join.body)}`);
  return { botId: join.body.bot_id as string, join };
}

/** Whether a bot is in the call of local room `room`. */
export const botInCall = (stack: TestStack, room: string) =>
  stack.rooms.rooms.get(room)?.participants.some((p) => p.kind === 'bot') ?? false;

/** Creates the local room `room`, joins a bot to it (joinBot), and resolves once the bot is in the call. */
export async function joinBotInRoom(
  stack: TestStack,
  key: string,
  room: string,
  body: Record<string, unknown> = {},
): Promise<{ botId: string; join: TestResponse }> {
  await createRoom(stack, room);
  const joined = await joinBot(stack, key, room, body);
  await until(async () => botInCall(stack, room));
  return joined;
}

/**
 * A bot whose whole life a test follows: a new account with 10 credits, the local room `room` (created with
 * `roomOptions`), a receiver for every webhook event, and a bot named Scribe (more of its config in `botConfig`) asked
 * into the room; the test waits for it to get in, as it expects it to.
 */
export async function followedBot(
  stack: TestStack,
  room: string,
  {
    roomOptions = {},
    botConfig = {},
  }: { roomOptions?: Record<string, unknown>; botConfig?: Record<string, unknown> } = {},
) {
  const account = await stack.account(10);
  await createRoom(stack, room, roomOptions);
  const hook = await webhookReceiver();
  const { botId } = await joinBot(stack, account.apiKey, room, {
    bot_config: { name: 'Scribe', ...botConfig },
    webhook_callback_url: hook.url,
    webhook_events: eventNames,
  });
  const status = async () =>
    (await stack.request('GET', `/api/bot/${botId}/status`, { key: account.apiKey })).body;
  /** The status view once the session has ended. */
  const ended = () =>
    until(async () => {
      const s = await status();
      return s.status !== 'running' && s;
    });
  /** The account once its hold is settled. */
  const settled = () =>
    until(async () => {
      const a = await stack.deps.accounts.get(account.accountId);
      return Object.keys(a?.holds ?? {}).length === 0 && a;
    });
  /** The webhooks delivered (signatures verified), by name, once `last` has arrived. */
  const events = async (last: string) => {
    const name = (b: { event?: string; event_type?: string }) => b.event ?? b.event_type;
    await until(() => hook.delivered(account.webhookSecret).some((b) => name(b) === last));
    return hook.delivered(account.webhookSecret).map((b) => ({ name: name(b), body: b }));
  };
  return { account, botId, hook, room, status, ended, settled, events };
}

/** A scripted participant enters `room`: says its lines at their times, answers, leaves at `leave_at_ms`. */
export async function addParticipant(stack: TestStack, room: string, participant: ScriptedParticipant) {
  const res = await fetch(`${stack.baseUrl}/rooms/${room}/participants`, {
    method: 'POST',
    body: JSON.stringify(participant),
  });
  if (!res.ok) throw new Error(`participant ${participant.name} refused by room ${room}: ${res.status}`);
}

/** Lines as `[at_ms, say]` pairs, the way a script reads, in the room's form. */
export const lines = (pairs: [number, string][]) => pairs.map(([at_ms, say]) => ({ at_ms, say }));

// Test helper: a bot joined to a new room of a test stack's local room server, and the scripted people it meets.
import type { ScriptedParticipant } from '../../local/room/room-server';
import type { TestResponse, TestStack } from './local-stack';
import { until } from './until';

/**
 * Creates the local room `room`, asks the API (with `key`) for a bot in it with the join body's other fields from
 * `body`, and resolves once the bot is in the call; a join not answered 201 fails with its body.
 */
export async function joinBotInRoom(
  stack: TestStack,
  key: string,
  room: string,
  body: Record<string, unknown> = {},
): Promise<{ botId: string; join: TestResponse }> {
  const created = await fetch(`${stack.baseUrl}/rooms`, {
    method: 'POST',
    body: JSON.stringify({ name: room }),
  });
  if (created.status !== 201) throw new Error(`room ${room} not created: ${created.status}`);
  const join = await stack.request('POST', '/api/bot/join', {
    key,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/${room}`, ...body },
  });
  if (join.status !== 201) throw new Error(`join answered ${join.status}: ${JSON.stringify(join.body)}`);
  await until(async () => stack.rooms.rooms.get(room)?.participants.some((p) => p.kind === 'bot'));
  return { botId: join.body.bot_id as string, join };
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

// How long one join may take, the same in every room: timeoutMs to the room or its lobby, then waitingRoomTimeoutMs in
// the lobby; a stop asked for while joining (the abort signal) gives up at once.
import { JoinAbortedError, type JoinOptions, RoomJoinError } from '../../core/ports/room-provider';

export interface JoinLimits {
  /** The bot is in the room's lobby: the lobby's deadline replaces the join's, and the caller is told. */
  lobby(): void;
  /** The join is over (in, or refused): the limits no longer apply. */
  settled(): void;
}

/** `giveUp` is called once with the error to fail the join with; `room`: how messages name the room. */
export function joinLimits(options: JoinOptions, giveUp: (err: Error) => void, room?: string): JoinLimits {
  let deadline: NodeJS.Timeout | undefined;
  const settled = () => {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', abort);
  };
  const stop = (err: Error) => {
    settled();
    giveUp(err);
  };
  const expireIn = (ms: number, err: RoomJoinError) => {
    clearTimeout(deadline);
    deadline = setTimeout(() => stop(err), ms);
  };
  const abort = () => stop(new JoinAbortedError());
  expireIn(
    options.timeoutMs,
    new RoomJoinError('unknown', `timed out after ${options.timeoutMs} ms joining ${room ?? 'the room'}`),
  );
  if (options.signal?.aborted) abort();
  else options.signal?.addEventListener('abort', abort, { once: true });
  return {
    lobby() {
      const waited = options.waitingRoomTimeoutMs;
      const where = room ? ` of ${room}` : '';
      expireIn(
        waited,
        new RoomJoinError(
          'unknown',
          `not let in from the waiting room${where} within ${waited / 1000} s`,
          'waiting_room_timeout',
        ),
      );
      options.onWaitingRoom?.();
    },
    settled,
  };
}

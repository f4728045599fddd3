// RoomProvider for Daily: placeholder until the Playwright harness lands (next commit).
import type { Logger } from '../../../core/log';
import { type RoomConnection, RoomJoinError, type RoomProvider } from '../../../core/ports/room-provider';

export class DailyRoomProvider implements RoomProvider {
  constructor(private readonly options: { log: Logger }) {}

  async join(): Promise<RoomConnection> {
    this.options.log.error('the Daily provider is not built yet');
    throw new RoomJoinError('unknown', 'the Daily provider is not available in this build');
  }
}

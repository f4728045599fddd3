// The local room server on a free port over real HTTP and WebSocket, as the local stack serves it (local/stack.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { createRoomServer, type RoomServer } from '../../local/room/room-server';

/** Starts it; `stop` closes the rooms, their sockets and the HTTP server. */
export async function startRoomServer(): Promise<{
  rooms: RoomServer;
  base: string;
  stop: () => Promise<void>;
}> {
  let base = '';
  const rooms = createRoomServer({ baseUrl: () => base });
  const http = createServer(async (req, res) => {
    if (!(await rooms.handle(req, res))) res.writeHead(404).end();
  });
  http.on('upgrade', (req, socket, head) => {
    if (!rooms.upgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    rooms,
    base,
    stop: () => {
      rooms.close();
      http.closeAllConnections();
      return new Promise((r) => http.close(() => r()));
    },
  };
}

/**
 * For a test file: `startRooms()` starts a room server that is stopped after each test, with whatever else the test
 * pushes to `cleanups` (run in reverse order).
 */
export function roomServersPerTest() {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    cleanups,
    async startRooms() {
      const server = await startRoomServer();
      cleanups.push(server.stop);
      return server;
    },
  };
}

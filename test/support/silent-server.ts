// A dependency that accepts every request and never answers: for request-timeout tests of the real SDK clients.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SilentServer {
  endpoint: string;
  /** Requests received so far (each one left unanswered). */
  requests(): number;
  close(): Promise<void>;
}

export async function silentServer(): Promise<SilentServer> {
  let requests = 0;
  const server = createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

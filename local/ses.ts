// Local SES v2: aws-ses-v2-local in-process; sent mails are listed at <endpoint>/store.
import type { AddressInfo } from 'node:net';
import * as sesModule from 'aws-ses-v2-local';

export interface LocalSes {
  endpoint: string;
  close(): Promise<void>;
}

export async function startLocalSes(): Promise<LocalSes> {
  // A CommonJS module with `exports.default`: Node's ESM interop and bundlers disagree on where it lands.
  const mod = sesModule as unknown as {
    default: typeof sesModule.default | { default: typeof sesModule.default };
  };
  const start = typeof mod.default === 'function' ? mod.default : mod.default.default;
  const server = await start({ host: '127.0.0.1', port: 0 });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

// Local SES v2: aws-ses-v2-local in-process; sent mails are listed at <endpoint>/store.
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import * as sesModule from 'aws-ses-v2-local';
import type { LocalMail } from './mail-viewer';

/**
 * How many sent mails the local store keeps: the newest ones; older mails are dropped so a stack left running for
 * days stays bounded (aws-ses-v2-local itself keeps every mail). `GET <endpoint>/store` lists what is kept.
 */
export const localSesMaxMails = 500;

export interface LocalSes {
  endpoint: string;
  /** How many mails the store holds now (at most `maxMails`). */
  mailsStored(): number;
  /** The mails the store holds, oldest first (GET /mail shows them). */
  mails(): readonly LocalMail[];
  close(): Promise<void>;
}

interface SesStore {
  emails: LocalMail[];
}

// The package's in-memory store (one per process): `dist/store` is its CommonJS module, not a public export.
const require = createRequire(import.meta.url);
const sesStore = (require('aws-ses-v2-local/dist/store') as { getStoreReadonly(): SesStore })
  .getStoreReadonly;

/** Drops the oldest mails beyond `max` (the store appends, so the oldest are first). */
export function trimSesStore(max: number): void {
  const store = sesStore();
  if (store.emails.length > max) store.emails.splice(0, store.emails.length - max);
}

export async function startLocalSes(options: { maxMails?: number } = {}): Promise<LocalSes> {
  const maxMails = options.maxMails ?? localSesMaxMails;
  // A CommonJS module with `exports.default`: Node's ESM interop and bundlers disagree on where it lands.
  const mod = sesModule as unknown as {
    default: typeof sesModule.default | { default: typeof sesModule.default };
  };
  const start = typeof mod.default === 'function' ? mod.default : mod.default.default;
  const server = await start({ host: '127.0.0.1', port: 0 });
  // Trim before every request (so /store never lists more than the cap) and after every response (a send stored one).
  const trim = () => trimSesStore(maxMails);
  server.prependListener('request', (_req, res) => {
    trim();
    res.on('finish', trim);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    mailsStored: () => sesStore().emails.length,
    mails: () => sesStore().emails,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

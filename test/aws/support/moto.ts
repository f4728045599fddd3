// moto_server (Python, moto 5.2.1) on a free loopback port: the AWS APIs our adapters call, offline.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../support/free-port';

export const motoAccountId = '123456789012';
export const motoRegion = 'us-east-1';

export interface Moto {
  endpoint: string;
  /** The end of moto_server's log (its tracebacks explain a 500). */
  log(): string;
  /** moto's own API (state reset, sent e-mails): https://docs.getmoto.org/en/latest/docs/server_mode.html */
  motoApi(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** `env`: moto's own settings, such as INITIAL_NO_AUTH_ACTION_COUNT (IAM enforced after that many calls). */
export async function startMoto(env: Record<string, string> = {}): Promise<Moto> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-20_000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited: ${stderr}`);
    const up = await fetch(`${endpoint}/moto-api/`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto_server did not start within 30 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    log: () => stderr,
    motoApi: (path, init) => fetch(`${endpoint}/moto-api/${path}`, init),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

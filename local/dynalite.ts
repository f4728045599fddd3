// Local DynamoDB: dynalite persisted under DATA_DIR, in a worker thread, on a loopback port.
import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts dynalite; `path` undefined keeps data in memory (tests), otherwise LevelDB files under it. */
export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<LocalDynamo> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const worker = new Worker(new URL('./dynalite-worker.mjs', import.meta.url), {
    workerData: { path: options.path, port: options.port ?? 0 },
  });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve(m.port));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`dynalite worker exited with ${code}`)));
  });
  let closed = false;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        worker.once('message', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage('close');
      });
      await worker.terminate();
    },
  };
}

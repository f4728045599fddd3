// Local DynamoDB: dynalite persisted under DATA_DIR, in a worker thread, on a loopback port.
import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

export interface LocalDynamo {
  endpoint: string;
  /** The worker's OS thread id (Linux only), for per-thread CPU accounting in benchmarks. */
  threadId?: number;
  close(): Promise<void>;
}

/** Starts dynalite; `path` undefined keeps data in memory (tests), otherwise LevelDB files under it. */
export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<LocalDynamo> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const worker = new Worker(new URL('./dynalite-worker.mjs', import.meta.url), {
    workerData: { path: options.path, port: options.port ?? 0 },
  });
  const { port, threadId } = await new Promise<{ port: number; threadId?: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`dynalite worker exited with ${code}`)));
  });
  let closed = false;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    threadId,
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

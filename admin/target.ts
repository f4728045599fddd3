// Which database the admin CLI works on: an explicit endpoint, AWS, the running local stack, or DATA_DIR's own.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureTable, type TableHandle } from '../core/adapters/dynamodb/table';
import { type Adapters, wireAdapters } from '../core/adapters/wiring';
import { type Config, loadConfig } from '../core/config';
import { createLogger } from '../core/log';
import { startDynalite } from '../local/dynalite';
import { stackFileName } from '../local/stack-file';

export interface Target {
  config: Config;
  table: TableHandle;
  /** The same composition root as the deployed functions (core/adapters/wiring.ts). */
  adapters: Adapters;
  close(): Promise<void>;
}

export async function openTarget(options: { aws: boolean }): Promise<Target> {
  const env = process.env;
  if (env.DYNAMODB_ENDPOINT) return connect(loadConfig(env), true);
  // AWS: the CDK stack owns the table, so it is never created from here.
  if (options.aws) return connect(loadConfig(env), false);

  const dataDir = resolve(env.DATA_DIR ?? '.data');
  const running = runningStack(dataDir);
  if (running) {
    return connect(
      loadConfig({
        ...env,
        DYNAMODB_ENDPOINT: running.dynamodb_endpoint,
        SQS_ENDPOINT: running.sqs_endpoint,
        DELIVERY_QUEUE_URL: running.delivery_queue_url,
        DELIVERY_DLQ_URL: running.delivery_dlq_url,
      }),
      true,
    );
  }

  // LevelDB allows one process per directory, so dynalite is started here only when no stack holds it.
  const dynamo = await startDynalite({ path: join(dataDir, 'dynamodb') });
  try {
    const target = await connect(loadConfig({ ...env, DYNAMODB_ENDPOINT: dynamo.endpoint }), true);
    return {
      ...target,
      async close() {
        await target.close();
        await dynamo.close();
      },
    };
  } catch (err) {
    await dynamo.close();
    throw err;
  }
}

async function connect(config: Config, createTable: boolean): Promise<Target> {
  // The CLI prints its own results; adapters log only problems.
  const adapters = wireAdapters(config, createLogger('warn', { component: 'admin' }));
  const table = adapters.table;
  const close = async () => adapters.destroy();
  try {
    if (createTable) await ensureTable(table);
  } catch (err) {
    await close();
    throw err;
  }
  return { config, table, adapters, close };
}

interface StackFile {
  pid?: unknown;
  dynamodb_endpoint?: string;
  sqs_endpoint?: string;
  delivery_queue_url?: string;
  delivery_dlq_url?: string;
}

/** The endpoints of a local stack running on this data directory, if one is. */
function runningStack(dataDir: string): StackFile | undefined {
  let stack: StackFile;
  try {
    stack = JSON.parse(readFileSync(join(dataDir, stackFileName), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof stack.pid !== 'number' || typeof stack.dynamodb_endpoint !== 'string') return undefined;
  try {
    process.kill(stack.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user; a killed stack leaves its file behind (ESRCH).
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return stack;
}

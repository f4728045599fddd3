// Which database the admin CLI works on: an explicit endpoint, AWS, the running local stack, or DATA_DIR's own.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureTable, type TableHandle } from '../core/adapters/dynamodb/table';
import { type Adapters, wireAdapters } from '../core/adapters/wiring';
import { type Config, loadConfig } from '../core/config';
import { createLogger } from '../core/log';
import { startDynalite } from '../local/dynalite';
import { isAlive, stackFileName } from '../local/stack-file';

export interface Target {
  config: Config;
  table: TableHandle;
  /** The same composition root as the deployed functions (core/adapters/wiring.ts). */
  adapters: Adapters;
  /** Which database this is, for messages: "the local stack running on DATA_DIR /x (…)". */
  where: string;
  close(): Promise<void>;
}

/** How to point the CLI at another database; said with every "not found". */
export const otherDatabases =
  'Another database: DATA_DIR=<the directory npm start keeps its data in (default .data where it runs)>, ' +
  'DYNAMODB_ENDPOINT=<url>, or --aws for the deployed table.';

/** DATA_DIR has no database and no stack runs on it: a command that only reads would find nothing there. */
export class NoDatabaseError extends Error {}

export async function openTarget(options: { aws: boolean; mayCreate: boolean }): Promise<Target> {
  const env = process.env;
  // The CLI's own choice of database, as DATA_DIR is; the service reads it from LOCAL_STACK.
  if (env.DYNAMODB_ENDPOINT) {
    const config = loadConfig(env, { DYNAMODB_ENDPOINT: env.DYNAMODB_ENDPOINT });
    return connect(config, true, `table ${config.TABLE_NAME} at DYNAMODB_ENDPOINT ${env.DYNAMODB_ENDPOINT}`);
  }
  // AWS: the CDK stack owns the table, so it is never created from here.
  if (options.aws) {
    const config = loadConfig(env);
    return connect(config, false, `the AWS table ${config.TABLE_NAME} in ${config.AWS_REGION} (--aws)`);
  }

  const dataDir = resolve(env.DATA_DIR ?? '.data');
  const running = runningStack(dataDir);
  if (running) {
    return connect(
      loadConfig(env, {
        DYNAMODB_ENDPOINT: running.dynamodb_endpoint,
        SQS_ENDPOINT: running.sqs_endpoint,
        DELIVERY_QUEUE_URL: running.delivery_queue_url,
        DELIVERY_DLQ_URL: running.delivery_dlq_url,
        // An operator's data deletion sends bot.data_deleted to the bot's ordered events.
        BOT_EVENTS_QUEUE_URL: running.bot_events_queue_url,
        // An operator's data deletion removes the recording's files too, where the stack keeps them.
        RECORDINGS_DIR: running.recordings_dir ?? join(dataDir, 'recordings'),
      }),
      true,
      `the local stack running on DATA_DIR ${dataDir} (pid ${running.pid}${running.base_url ? `, ${running.base_url}` : ''})`,
    );
  }

  const databaseDir = join(dataDir, 'dynamodb');
  if (!options.mayCreate && !existsSync(databaseDir)) {
    // Opening it would create an empty database in what is most likely a mistyped or wrong directory.
    throw new NoDatabaseError(
      `DATA_DIR ${dataDir} has no database (no ${databaseDir}) and no local stack runs on it. ${otherDatabases}`,
    );
  }
  // LevelDB allows one process per directory, so dynalite is started here only when no stack holds it.
  const dynamo = await startDynalite({ path: databaseDir });
  try {
    const target = await connect(
      loadConfig(env, { RECORDINGS_DIR: join(dataDir, 'recordings'), DYNAMODB_ENDPOINT: dynamo.endpoint }),
      true,
      `the database of DATA_DIR ${dataDir} (no local stack runs on it)`,
    );
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

async function connect(config: Config, createTable: boolean, where: string): Promise<Target> {
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
  return { config, table, adapters, where, close };
}

interface StackFile {
  pid?: unknown;
  base_url?: string;
  dynamodb_endpoint?: string;
  sqs_endpoint?: string;
  delivery_queue_url?: string;
  delivery_dlq_url?: string;
  bot_events_queue_url?: string;
  recordings_dir?: string;
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
  return isAlive(stack.pid) ? stack : undefined;
}

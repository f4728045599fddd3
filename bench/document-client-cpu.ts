// Our DocumentClient (core/adapters/dynamodb/document-client.ts) against lib-dynamodb's DynamoDBDocumentClient: our
// process's CPU per request of the status read and the join, each whole route handler (auth, rate limit, use case,
// its DynamoDB calls), Lambda-shaped. `npx tsx bench/document-client-cpu.ts [rounds] [requests per window]`.
// dynalite answers from a child process, so its CPU is not counted; both clients run side by side in this process,
// in short windows to each in turn (the order swapped each round), so a drifting machine moves both alike.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { fastConfig } from '../core/adapters/aws-clients';
import { DocumentClient } from '../core/adapters/dynamodb/document-client';
import { DynamoRateLimiter } from '../core/adapters/dynamodb/rate-limiter';
import { buildStores } from '../core/adapters/dynamodb/stores';
import { ensureTable, type TableHandle } from '../core/adapters/dynamodb/table';
import { SessionCache } from '../core/bots/status-cache';
import { TranscriptCache } from '../core/bots/transcript-cache';
import { loadConfig } from '../core/config';
import { buildServiceDeps } from '../core/deps';
import { createLogger } from '../core/log';
import { authenticatedRoute, type HttpEvent } from '../functions/http/http-route';
import { joinRoute, statusFunctionRoute } from '../functions/http/routes';
import { median, redirectedHandler, serialCpuUs } from './support';

/** The stand-in: dynalite in memory, with the local stack's TransactWriteItems. */
async function serveDynalite(): Promise<void> {
  // @ts-expect-error: dynalite has no types
  const { default: dynalite } = await import('dynalite');
  // @ts-expect-error: a plain ES module of the local stack, without types
  const { withTransactions } = await import('../local/dynalite-transactions.mjs');
  const server = withTransactions(() => dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
}

const variants = ['ours', 'lib-dynamodb'] as const;
type Variant = (typeof variants)[number];

/** As dynamoDocumentClient builds it, less the endpoint override; lib-dynamodb refuses `cacheMiddleware`. */
function documentClient(variant: Variant, port: number): DocumentClient {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    maxAttempts: 3,
    cacheMiddleware: variant === 'ours',
    requestHandler: redirectedHandler(port),
  });
  client.middlewareStack.remove('loggerMiddleware');
  fastConfig(client);
  if (variant === 'ours') return new DocumentClient(client);
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return Object.assign(doc, { client }) as unknown as DocumentClient;
}

function event(routeKey: string, key: string, extra: Partial<HttpEvent>): HttpEvent {
  const now = Date.now();
  const [method = 'GET', path = '/'] = routeKey.split(' ');
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    isBase64Encoded: false,
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench',
      domainPrefix: 'bench',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    ...extra,
  };
}

/** One variant's route handlers on its own table, with funded accounts and running bots that have a transcript. */
async function side(variant: Variant, port: number, accounts: number, bots: number) {
  const table: TableHandle = { doc: documentClient(variant, port), tableName: `bench-${variant}` };
  await ensureTable(table);
  const config = {
    ...loadConfig({ TABLE_NAME: table.tableName, RATE_LIMIT_PER_MINUTE: '100000000' }),
    MAX_RUNNING_BOTS_PER_ACCOUNT: 1_000_000,
  };
  const stores = buildStores(table, config);
  const deps = {
    ...buildServiceDeps(config, {
      stores,
      runner: { start: async (botId: string) => ({ taskRef: `bench:${botId}` }), stop: async () => {} },
      outbox: { send: async () => {} },
      rateLimiter: new DynamoRateLimiter(table),
      log: createLogger('silent'),
    }),
    // Every status read misses (the session read and its transcript's catch-up Query), as a Lambda instance's first.
    statusCache: new SessionCache(0),
    transcriptCache: new TranscriptCache(stores.transcripts, 0),
  };
  const keys: string[] = [];
  for (let i = 0; i <= accounts; i++) {
    const { account, apiKey } = await stores.accounts.create(`bench ${i}`);
    await stores.ledger.grant(account.accountId, 1_000_000, 'bench');
    keys.push(apiKey);
  }
  const join = authenticatedRoute(joinRoute, async () => deps);
  const status = authenticatedRoute(statusFunctionRoute, async () => deps);
  const body = JSON.stringify({ provider: 'daily', room_url: 'https://example.daily.co/bench' });
  const joinWith = async (key: string) => {
    const res = await join(event('POST /api/bot/join', key, { body }));
    if (res.statusCode !== 201) throw new Error(`join: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body as string).bot_id as string;
  };
  // The status reader's own account: its bots' holds stay off the joiners' account items.
  const statusKey = keys.pop() as string;
  const botIds: string[] = [];
  for (let i = 0; i < bots; i++) {
    const botId = await joinWith(statusKey);
    await stores.transcripts.saveSegment(botId, 1, [
      { speaker: 'Ada', participant_id: 'p-ada', started_at: new Date().toISOString(), text: 'Hello there.' },
    ]);
    botIds.push(botId);
  }
  let nextBot = 0;
  const statusOnce = async () => {
    const bot_id = botIds[nextBot++ % botIds.length] as string;
    const path = `/api/bot/${bot_id}/status`;
    const res = await status(
      event('GET /api/bot/{bot_id}/status', statusKey, { rawPath: path, pathParameters: { bot_id } }),
    );
    if (res.statusCode !== 200) throw new Error(`status: ${res.statusCode} ${res.body}`);
  };
  let nextKey = 0;
  return { join: () => joinWith(keys[nextKey++ % keys.length] as string), status: statusOnce };
}

async function measure(rounds: number, windowRequests: number): Promise<void> {
  const standIn = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'stand-in'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => standIn.kill());
  const port = await new Promise<number>((r) =>
    standIn.stdout.once('data', (b) => r(Number(String(b).trim()))),
  );
  process.env.AWS_ACCESS_KEY_ID = 'ASIAEXAMPLEEXAMPLE00';
  process.env.AWS_SECRET_ACCESS_KEY = 'example-secret-example-secret-example-00';
  process.env.AWS_SESSION_TOKEN = 'x'.repeat(800);
  // Each account's holds are on the item every join rewrites: spread the joins so no account gathers many.
  const accounts = Math.ceil((rounds * windowRequests) / 4);
  const calls: Record<string, () => Promise<unknown>> = {};
  for (const v of variants) {
    const s = await side(v, port, accounts, 100);
    calls[`status ${v}`] = s.status;
    calls[`join ${v}`] = s.join;
  }
  const window = serialCpuUs;
  for (const call of Object.values(calls)) await window(call, 100);
  const perRequest: Record<string, number[]> = Object.fromEntries(Object.keys(calls).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++)
    for (const path of ['status', 'join'])
      for (const v of r % 2 ? [...variants].reverse() : variants)
        perRequest[`${path} ${v}`]?.push(
          await window(calls[`${path} ${v}`] as () => Promise<unknown>, windowRequests),
        );
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  for (const path of ['status', 'join']) {
    const lib = perRequest[`${path} lib-dynamodb`] as number[];
    const ours = perRequest[`${path} ours`] as number[];
    const ratios = sorted(ours.map((x, i) => x / (lib[i] as number)));
    const quarter = (q: number) =>
      (ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))] as number).toFixed(2);
    console.info(
      `${path}: ${median(lib).toFixed(0)} µs of CPU per request with DynamoDBDocumentClient, ${median(ours).toFixed(0)} µs with ours; ` +
        `ours ${median(ratios).toFixed(3)}× (middle half of ${rounds} paired rounds ${quarter(0.25)}–${quarter(0.75)}×)`,
    );
  }
}

if (process.argv[2] === 'stand-in') await serveDynalite();
else
  await measure(Number(process.argv[2] ?? 16), Number(process.argv[3] ?? 100)).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );

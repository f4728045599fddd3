// What fastConfig saves: our process's CPU per DynamoDB and SQS call in a Lambda-shaped process, with and without it.
// `npx tsx bench/sdk-client-cpu.ts [rounds] [calls per window]`. Clients with and without it side by side in one
// process, short windows of calls to each in turn (the order swapped each round), so a drifting machine moves both
// alike; the stand-in answers canned replies from another process, so its CPU is not counted.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { fastConfig } from '../core/adapters/aws-clients';
import { DocumentClient } from '../core/adapters/dynamodb/document-client';
import { median, redirectedHandler, serialCpuUs } from './support';

const item = {
  pk: 'BOT#aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  sk: 'BOT',
  state: 'in_call',
  account_id: 'acc_123',
  meeting_url: 'https://example.daily.co/room',
  created_at: '2026-11-28T10:00:00.000Z',
  events: [
    { code: 'joining', at: 1 },
    { code: 'in_call', at: 2 },
  ],
  transcript_count: 42,
  recording: { status: 'none' },
  version: 7,
};

/** The stand-in: GetItem answers the item, PutItem nothing, SendMessage its id and body digest. */
function serveStandIn(): void {
  const got = JSON.stringify({ Item: marshall(item) });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      let out = '{}';
      if (target.endsWith('GetItem')) out = got;
      else if (target.endsWith('SendMessage')) {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { MessageBody: string };
        const md5 = createHash('md5').update(body.MessageBody).digest('hex');
        out = JSON.stringify({ MessageId: randomUUID(), MD5OfMessageBody: md5 });
      }
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() });
      res.end(out);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
}

async function measure(rounds: number, windowCalls: number): Promise<void> {
  const standIn = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'stand-in'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((r) =>
    standIn.stdout.once('data', (b) => r(Number(String(b).trim()))),
  );
  // Lambda's shape: no endpoint override, session credentials from the environment, the AWS host names signed and
  // resolved by the SDK's endpoint rules; only the socket goes to the stand-in.
  process.env.AWS_ACCESS_KEY_ID = 'ASIAEXAMPLEEXAMPLE00';
  process.env.AWS_SECRET_ACCESS_KEY = 'example-secret-example-secret-example-00';
  process.env.AWS_SESSION_TOKEN = 'x'.repeat(800);
  const variants = ['without', 'fastConfig'] as const;
  const body = JSON.stringify({ type: 'bot.status', bot_id: item.pk, state: 'in_call', at: 1 });
  const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/q';
  const calls: Record<string, () => Promise<unknown>> = {};
  for (const v of variants) {
    const tweak = <T extends { config: object }>(c: T) => (v === 'fastConfig' ? fastConfig(c) : c);
    // As dynamoDocumentClient builds it, less the endpoint override.
    const dynamo = new DynamoDBClient({
      region: 'us-east-1',
      maxAttempts: 3,
      cacheMiddleware: true,
      requestHandler: redirectedHandler(port),
    });
    dynamo.middlewareStack.remove('loggerMiddleware');
    const doc = new DocumentClient(tweak(dynamo));
    let i = 0;
    calls[`dynamodb ${v}`] = () =>
      i++ % 2
        ? doc.send(new GetCommand({ TableName: 'bots', Key: { pk: item.pk, sk: item.sk } }))
        : doc.send(new PutCommand({ TableName: 'bots', Item: { ...item, version: i } }));
    const sqs = tweak(new SQSClient({ region: 'us-east-1', requestHandler: redirectedHandler(port) }));
    calls[`sqs ${v}`] = () => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  }
  const window = serialCpuUs;
  for (const call of Object.values(calls)) await window(call, 500);
  const perCall: Record<string, number[]> = Object.fromEntries(Object.keys(calls).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++)
    for (const service of ['dynamodb', 'sqs'])
      for (const v of r % 2 ? [...variants].reverse() : variants)
        perCall[`${service} ${v}`]?.push(
          await window(calls[`${service} ${v}`] as () => Promise<unknown>, windowCalls),
        );
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  for (const service of ['dynamodb', 'sqs']) {
    const without = perCall[`${service} without`] as number[];
    const ratios = sorted(
      (perCall[`${service} fastConfig`] as number[]).map((x, i) => x / (without[i] as number)),
    );
    const quarter = (q: number) =>
      (ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))] as number).toFixed(2);
    console.info(
      `${service}: ${median(without).toFixed(0)} µs of CPU per call without fastConfig; with it ${median(ratios).toFixed(2)}× ` +
        `(middle half of ${rounds} paired rounds ${quarter(0.25)}–${quarter(0.75)}×)`,
    );
  }
  standIn.kill();
}

if (process.argv[2] === 'stand-in') serveStandIn();
else {
  await measure(Number(process.argv[2] ?? 24), Number(process.argv[3] ?? 250));
  process.exit(0);
}

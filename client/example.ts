// The walkthrough of docs/client.md as one script: a bot in the local demo room, a line said, its status, leave, and
// the signed session_complete verified. Run beside `npm start` with the key and secret it prints:
//   MEETING_BOT_API_KEY=mbk_… MEETING_BOT_WEBHOOK_SECRET=whsec_… npx tsx client/example.ts
import { createServer } from 'node:http';
import {
  createMeetingBotClient,
  MeetingBotApiError,
  verifyWebhook,
  type WebhookEventOf,
  webhookEventName,
} from './index.js';

const baseUrl = process.env.MEETING_BOT_URL ?? 'http://localhost:3000';
const apiKey = process.env.MEETING_BOT_API_KEY ?? '';
const webhookSecret = process.env.MEETING_BOT_WEBHOOK_SECRET ?? '';
if (!apiKey || !webhookSecret) {
  console.error('Set MEETING_BOT_API_KEY and MEETING_BOT_WEBHOOK_SECRET to what npm start printed.');
  process.exit(2);
}

const client = createMeetingBotClient({ baseUrl, apiKey });

// 1. A webhook receiver. The signature covers the raw body: verify it before parsing anything.
const sessionComplete = new Promise<WebhookEventOf<'session_complete'>>((resolve) => {
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      try {
        const event = verifyWebhook(webhookSecret, body, req.headers);
        console.log('webhook:', webhookEventName(event));
        res.writeHead(204).end();
        if (webhookEventName(event) === 'session_complete') {
          receiver.close();
          resolve(event as WebhookEventOf<'session_complete'>);
        }
      } catch (err) {
        console.error('refused a webhook:', (err as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  receiver.listen(4010, '127.0.0.1');
});

// 2. A bot in the local demo room; the webhook gets bot.in_call as well as the results it always gets.
const room = `${baseUrl}/rooms/demo`;
const { bot_id: botId } = await client.start({
  provider: 'local',
  room_url: room,
  bot_config: { name: 'Scribe' },
  webhook_callback_url: 'http://127.0.0.1:4010/hook',
  webhook_events: ['bot.in_call'],
});
console.log('started', botId);

// 3. Its status: running; once in the call, someone says a line (the local room's scripted participant).
for (;;) {
  const status = await client.status(botId);
  if (status.status_changes?.some((c) => c.code === 'in_call')) break;
  await new Promise((r) => setTimeout(r, 250));
}
await fetch(`${room}/participants`, {
  method: 'POST',
  // Ada leaves a while after her line, so she is not left in the room for the next bot.
  body: JSON.stringify({
    name: 'Ada',
    lines: [{ say: 'We ship the client on Friday.', at_ms: 0 }],
    leave_at_ms: 30_000,
  }),
});
while ((await client.transcript(botId)).utterances.length === 0) await new Promise((r) => setTimeout(r, 250));

// 4. Leave: the bot saves the transcript, processes the insights and sends the results.
await client.leave(botId);
const results = await sessionComplete;
console.log('exit reason:', results.exit_reason);
console.log('transcript:', results.transcript_text);
console.log('summary:', results.summary);

// 5. Errors are MeetingBotApiError, with the service's error code and detail.
try {
  await client.leave(botId);
} catch (err) {
  if (!(err instanceof MeetingBotApiError)) throw err;
  console.log('a second leave:', err.status, err.error, '-', err.detail);
}

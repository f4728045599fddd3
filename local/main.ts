// `npm start`: runs the local stack until Ctrl-C.
import { describeEngine } from '../core/adapters/language-engines';
import { startLocalStack } from './stack';

const stack = await startLocalStack({ devAccount: true });
await stack.runner.prepare();
const dev = stack.devAccount!;
process.stdout.write(
  [
    '',
    'Meeting Bot Service is running locally.',
    `  Base URL:      ${stack.baseUrl}`,
    `  API key:       ${dev.api_key}`,
    `  Account:       ${dev.account_id}`,
    `  Webhook secret: ${dev.webhook_secret}  (verifies the signatures of this account's webhooks)`,
    `  OpenAPI:       ${stack.baseUrl}/openapi.json`,
    `  API docs:      ${stack.baseUrl}/docs  (the API reference, rendered from the OpenAPI document)`,
    `  Mail:          ${stack.baseUrl}/mail  (the results e-mails sent, newest first)`,
    `  Conversation:  ${describeEngine(stack.config, 'conversation')}`,
    `  Insights:      ${describeEngine(stack.config, 'insights')}`,
    '',
    'Try:',
    `  curl -s ${stack.baseUrl}/api/bot/join -H "Authorization: Bearer ${dev.api_key}" \\`,
    `    -H 'Content-Type: application/json' -d '{"provider":"local","room_url":"${stack.baseUrl}/rooms/demo"}'`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n'),
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: shutting down…\n`);
  stack.close().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));

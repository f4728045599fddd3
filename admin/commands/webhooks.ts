// `webhooks rotate-secret`: replace an account's webhook signing secret, with an overlap.
import { type Command, lines, onAccount } from './command';

export const webhooksCommands: Record<string, Command> = {
  'webhooks rotate-secret': {
    args: '--account ID',
    about: 'Replace the webhook signing secret (both sign during the overlap, 24 h by default)',
    prepare: (flags) =>
      onAccount(flags, async ({ accountId }, { stores: { accounts }, config }) => {
        const now = new Date();
        const secret = await accounts.rotateWebhookSecret(accountId, now);
        const until = new Date(now.getTime() + config.WEBHOOK_SECRET_OVERLAP_SECONDS * 1000).toISOString();
        return {
          json: { account_id: accountId, webhook_secret: secret, previous_secret_signs_until: until },
          text: lines(
            `New webhook secret for ${accountId}:`,
            `  ${secret}`,
            `Deliveries carry signatures with both the new and the previous secret until ${until}`,
            '(WEBHOOK_SECRET_OVERLAP_SECONDS); then only with the new one.',
          ),
        };
      }),
  },
};

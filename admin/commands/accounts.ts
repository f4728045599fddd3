// `accounts create|show|set-retention`: an account itself, its balance at a glance, how long its meetings are kept.
import { redateRetention, retentionDaysBounds } from '../../core/data/retention';
import {
  type Command,
  integer,
  lines,
  NotFoundError,
  onAccount,
  required,
  signed,
  UsageError,
} from './command';
import { keyJson, keyLine, keysByAge } from './keys';

const ledgerShown = 20;

export const accountsCommands: Record<string, Command> = {
  'accounts create': {
    args: '--name NAME --credits N',
    about: 'Create an account; prints its API key (shown once) and webhook secret',
    createsData: true,
    prepare(flags) {
      const name = required(flags, 'name').trim();
      if (!name || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
      const credits = integer(flags, 'credits');
      if (credits < 0) throw new UsageError('--credits must be zero or more');
      return async ({ stores: { accounts, ledger } }) => {
        const { account, apiKey, keyId } = await accounts.create(name);
        const balance = credits === 0 ? 0 : await ledger.grant(account.accountId, credits, 'initial credits');
        return {
          json: {
            account_id: account.accountId,
            api_key: apiKey,
            key_id: keyId,
            webhook_secret: account.webhookSecret,
            balance,
          },
          text: lines(
            `Created account ${account.accountId} (${name}).`,
            `  API key:        ${apiKey}`,
            `  Key id:         ${keyId}`,
            `  Webhook secret: ${account.webhookSecret}`,
            `  Balance:        ${balance} credits`,
            'The API key is shown only this once: store it now.',
          ),
        };
      };
    },
  },

  'accounts show': {
    args: '--account ID',
    about: `Balance, holds, API keys and the last ${ledgerShown} ledger entries`,
    prepare: (flags) =>
      onAccount(flags, async (account, { stores: { accounts, ledger } }) => {
        const accountId = account.accountId;
        const [apiKeys, entries] = await Promise.all([
          keysByAge(accounts, accountId),
          ledger.entries(accountId),
        ]);
        const holds = Object.values(account.holds);
        const holdTotal = holds.reduce((sum, h) => sum + h, 0);
        const recent = entries.slice(-ledgerShown);
        return {
          json: {
            account_id: accountId,
            name: account.name,
            created_at: account.createdAt,
            balance: account.balance,
            holds: { count: holds.length, total: holdTotal },
            keys: apiKeys.map(keyJson),
            ledger: recent.map((e) => ({
              kind: e.kind,
              amount: e.amount,
              bot_id: e.botId ?? null,
              note: e.note ?? null,
              created_at: e.createdAt,
            })),
            ledger_entries_total: entries.length,
          },
          text: lines(
            `Account ${accountId} (${account.name}), created ${account.createdAt}`,
            `  Balance: ${account.balance} credits`,
            `  Holds:   ${holds.length} running bot(s), ${holdTotal} credits`,
            `API keys (${apiKeys.length}):`,
            ...apiKeys.map((k) => `  ${keyLine(k)}`),
            `Ledger (last ${recent.length} of ${entries.length}):`,
            ...recent.map(
              (e) =>
                `  ${e.createdAt}  ${e.kind.padEnd(7)} ${signed(e.amount).padStart(6)}  ${e.botId ? `bot ${e.botId}` : (e.note ?? '')}`,
            ),
          ),
        };
      }),
  },

  'accounts set-retention': {
    args: '--account ID --days N|default',
    about: `Days the account's meeting content is kept (${retentionDaysBounds.min}–${retentionDaysBounds.max}; 0: deleted once delivered; default: RETENTION_DAYS)`,
    prepare(flags) {
      const accountId = required(flags, 'account');
      const raw = required(flags, 'days');
      const days = raw === 'default' ? null : Number(raw);
      if (
        days !== null &&
        (!/^\d+$/.test(raw) || days < retentionDaysBounds.min || days > retentionDaysBounds.max)
      ) {
        throw new UsageError(
          `--days must be a whole number from ${retentionDaysBounds.min} to ${retentionDaysBounds.max}, or 'default'; got '${raw}'`,
        );
      }
      return async ({ stores, config }) => {
        const before = await stores.accounts.get(accountId);
        if (!before || !(await stores.accounts.setRetentionDays(accountId, days)))
          throw new NotFoundError(`account ${accountId} not found`);
        const effective = days ?? config.RETENTION_DAYS;
        // A shorter retention re-dates the meetings still kept, so none waits for the longer time; a longer one is
        // applied by the sweep to each meeting as it comes due (core/data/retention.ts).
        const redated = await redateRetention(
          { stores, now: () => new Date() },
          accountId,
          before.retentionDays ?? config.RETENTION_DAYS,
          effective,
        );
        return {
          json: {
            account_id: accountId,
            retention_days: days,
            effective_retention_days: effective,
            meetings_redated: redated,
          },
          text: lines(
            `Account ${accountId} keeps meeting content ${effective} day(s) after each meeting${days === null ? ' (the deployment default)' : ''}.`,
            redated > 0
              ? `${redated} meeting(s) still kept were re-dated to it; the sweep deletes those now past it within minutes.`
              : 'Meetings already ended keep their content until their end plus this retention.',
          ),
        };
      };
    },
  },
};

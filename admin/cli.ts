// Operator CLI for accounts, API keys, credits, webhook secrets and the deployment preflight: `npm run admin -- help`.
import { parseArgs } from 'node:util';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { AccountNotFoundError } from '../core/accounts/errors';
import { preflightClients } from '../core/adapters/aws-clients';
import { recordsAudio } from '../core/bots/session';
import { type Config, loadConfig } from '../core/config';
import type { Outbox } from '../core/control/outbox';
import { deleteMeetingData } from '../core/data/delete-meeting-data';
import { redateRetention, retentionDaysBounds } from '../core/data/retention';
import { redriveDeliveries } from '../core/delivery/redrive';
import type { Stores } from '../core/deps';
import { createLogger } from '../core/log';
import type { RecordingStore } from '../core/ports/recordings';
import { doctorExitCode, doctorReport, runDoctor } from './doctor';
import { NoDatabaseError, openTarget, otherDatabases, type Target } from './target';

// Node 20 is supported here; the SDK's notice about its future Node 22 floor would only clutter the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const options = {
  name: { type: 'string' },
  credits: { type: 'string' },
  account: { type: 'string' },
  key: { type: 'string' },
  amount: { type: 'string' },
  note: { type: 'string' },
  'request-id': { type: 'string' },
  bot: { type: 'string' },
  days: { type: 'string' },
  stage: { type: 'string' },
  json: { type: 'boolean' },
  aws: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = {
  [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean;
};

interface Result {
  json: Record<string, unknown>;
  text: string;
}

type Work = (
  stores: Stores,
  config: Config,
  sqs: () => SQSClient,
  outbox: () => Outbox,
  recordings: () => RecordingStore,
) => Promise<Result>;
/** Work on AWS itself rather than on the table; its exit code is its own (1 when it found a problem). */
type Check = () => Promise<Result & { exitCode: number }>;

interface Command {
  /** Flags as shown in the usage text; the command accepts exactly the flags named here. */
  args: string;
  about: string;
  /** Validates the flags before any database is touched, and returns the work to do. */
  prepare(flags: Flags): Work | { check: Check };
  /** Creates what it works on (an account), so it may start a database in an empty DATA_DIR; the others find nothing. */
  createsData?: true;
}

class UsageError extends Error {}
class NotFoundError extends Error {}

const ledgerShown = 20;

const commands: Record<string, Command> = {
  'deliveries redrive': {
    args: '[--bot BOT_ID]',
    about: 'Move deliveries that gave up (DLQ) back to the delivery queue, for one bot or all',
    prepare(flags) {
      const botId = flags.bot;
      if (botId !== undefined && !/^[0-9a-f-]{36}$/i.test(botId))
        throw new UsageError('--bot must be a bot id (UUID)');
      return async ({ deliveries }, config, sqsFor) => {
        if (!config.DELIVERY_QUEUE_URL || !config.DELIVERY_DLQ_URL) {
          throw new NotFoundError(
            'no delivery queues: start the local stack (npm start), or with --aws set QUEUE_URLS to {"DELIVERY_QUEUE_URL":…,"DELIVERY_DLQ_URL":…}',
          );
        }
        const { redriven, skipped } = await redriveDeliveries(
          { sqs: sqsFor(), queueUrl: config.DELIVERY_QUEUE_URL, dlqUrl: config.DELIVERY_DLQ_URL, deliveries },
          { botId },
        );
        return {
          json: { redriven, skipped },
          text: lines(
            `Redrove ${redriven.length} delivery(ies)${botId ? ` of bot ${botId}` : ''}; ${skipped} left in the DLQ.`,
            ...redriven.map((j) => `  ${j.bot_id} ${j.channel} ${j.event}`),
          ),
        };
      };
    },
  },

  doctor: {
    args: '--aws [--stage STAGE]',
    about:
      'Preflight of a deployed stage (default dev): Bedrock models, SES, the Daily secret and key, Fargate quota, ECS role',
    prepare(flags) {
      if (!flags.aws) throw new UsageError("'doctor' checks a deployed stage: add --aws");
      const stage = flags.stage ?? 'dev';
      if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage))
        throw new UsageError('--stage must be a stage name such as prod');
      return {
        async check() {
          const config = loadConfig(process.env);
          const clients = preflightClients(config);
          try {
            const results = await runDoctor(
              { clients, region: config.AWS_REGION, dailyApiUrl: config.DAILY_API_URL },
              stage,
            );
            const problems = results.filter((r) => r.status === 'problem').length;
            return {
              json: { stage, region: config.AWS_REGION, problems, checks: results },
              text: doctorReport(stage, results),
              exitCode: doctorExitCode(results),
            };
          } finally {
            for (const client of Object.values(clients)) client.destroy();
          }
        },
      };
    },
  },

  'accounts create': {
    args: '--name NAME --credits N',
    about: 'Create an account; prints its API key (shown once) and webhook secret',
    createsData: true,
    prepare(flags) {
      const name = required(flags, 'name').trim();
      if (!name || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
      const credits = integer(flags, 'credits');
      if (credits < 0) throw new UsageError('--credits must be zero or more');
      return async ({ accounts, ledger }) => {
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
    prepare(flags) {
      const accountId = required(flags, 'account');
      return async ({ accounts, ledger }) => {
        const account = await mustGet(accounts, accountId);
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
      };
    },
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
      return async (stores, config) => {
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

  'data delete': {
    args: '--bot BOT_ID',
    about:
      "Delete an ended bot's meeting content for its account (the tombstone stays); writes an audit line",
    prepare(flags) {
      const botId = required(flags, 'bot').toLowerCase();
      if (!/^[0-9a-f-]{36}$/.test(botId)) throw new UsageError('--bot must be a bot id (UUID)');
      return async (stores, config, _sqs, outbox, recordings) => {
        const session = await stores.sessions.get(botId);
        if (!session) throw new NotFoundError(`bot ${botId} not found`);
        if (session.status === 'running')
          throw new UsageError(`bot ${botId} is still running: stop it first, then delete its data`);
        // Refused before anything is deleted: a deletion that cannot reach the recording would leave its audio.
        if (recordsAudio(session) && !config.RECORDINGS_DIR && !config.RECORDINGS_BUCKET) {
          throw new Error(
            `bot ${botId} was recorded and no recording store is set: set RECORDINGS_BUCKET (the stack's RecordingsBucketName output) and run it again`,
          );
        }
        let eventError: string | null = null;
        const sending: Outbox = {
          send: (m, o) =>
            outbox()
              .send(m, o)
              .catch((err: Error) => {
                eventError = err.message;
              }),
        };
        const deleted = await deleteMeetingData(
          {
            stores,
            recordings: recordings(),
            outbox: sending,
            log: createLogger('silent'),
            now: () => new Date(),
          },
          session,
          'operator',
        );
        // The audit trail: who deleted which account's meeting content, when (stderr, JSON, kept by the caller).
        process.stderr.write(
          `${JSON.stringify({
            level: 'INFO',
            message: 'audit: operator deleted meeting data',
            audit: 'data_delete',
            timestamp: new Date().toISOString(),
            operator: process.env.USER ?? process.env.LOGNAME ?? 'unknown',
            bot_id: botId,
            account_id: session.accountId,
            data_deleted_at: deleted.data_deleted_at,
          })}\n`,
        );
        return {
          json: { ...deleted, account_id: session.accountId, event_error: eventError },
          text: lines(
            `Deleted the meeting content of bot ${botId} (account ${session.accountId}) at ${deleted.data_deleted_at}.`,
            ...(eventError ? [`warning: bot.data_deleted was not sent: ${eventError}`] : []),
          ),
        };
      };
    },
  },

  'keys create': {
    args: '--account ID',
    about: 'Issue another API key (shown once)',
    prepare(flags) {
      const accountId = required(flags, 'account');
      return async ({ accounts }) => {
        await mustGet(accounts, accountId);
        const { apiKey, keyId } = await accounts.createKey(accountId);
        return {
          json: { account_id: accountId, api_key: apiKey, key_id: keyId },
          text: lines(
            `Created key ${keyId} for ${accountId}.`,
            `  API key: ${apiKey}`,
            'The API key is shown only this once: store it now.',
          ),
        };
      };
    },
  },

  'keys list': {
    args: '--account ID',
    about: "List the account's API keys",
    prepare(flags) {
      const accountId = required(flags, 'account');
      return async ({ accounts }) => {
        await mustGet(accounts, accountId);
        const apiKeys = await keysByAge(accounts, accountId);
        return {
          json: { account_id: accountId, keys: apiKeys.map(keyJson) },
          text: lines(
            `API keys of ${accountId} (${apiKeys.length}):`,
            ...apiKeys.map((k) => `  ${keyLine(k)}`),
          ),
        };
      };
    },
  },

  'keys revoke': {
    args: '--account ID --key KEY_ID',
    about: 'Revoke an API key',
    prepare(flags) {
      const accountId = required(flags, 'account');
      const keyId = required(flags, 'key');
      return async ({ accounts }) => {
        await mustGet(accounts, accountId);
        const existing = (await accounts.listKeys(accountId)).find((k) => k.keyId === keyId);
        if (!existing) throw new NotFoundError(`key ${keyId} not found on account ${accountId}`);
        const now = new Date();
        await accounts.revokeKey(accountId, keyId, now);
        // Revoking twice keeps the first time (the store writes it only if absent).
        const revokedAt = existing.revokedAt ?? now.toISOString();
        return {
          json: { account_id: accountId, key_id: keyId, revoked_at: revokedAt },
          text: `Key ${keyId} of ${accountId} is revoked (since ${revokedAt}).\n`,
        };
      };
    },
  },

  'credits add': {
    args: '--account ID --amount N [--note TEXT] [--request-id ID]',
    about: 'Add credits; a negative amount removes them; a retry with the same --request-id adds once',
    prepare(flags) {
      const accountId = required(flags, 'account');
      const amount = integer(flags, 'amount');
      if (amount === 0) throw new UsageError('--amount must not be zero');
      const note = flags.note ?? 'admin';
      const requestId = flags['request-id'];
      if (requestId !== undefined && (!requestId.trim() || requestId.length > 200))
        throw new UsageError('--request-id must be 1 to 200 characters');
      return async ({ ledger }) => {
        const balance = await ledger.grant(accountId, amount, note, new Date(), requestId);
        return {
          json: {
            account_id: accountId,
            amount,
            balance,
            ...(requestId !== undefined && { request_id: requestId }),
          },
          text: `${signed(amount)} credits for ${accountId}; balance is now ${balance}.\n`,
        };
      };
    },
  },

  'webhooks rotate-secret': {
    args: '--account ID',
    about: 'Replace the webhook signing secret (both sign during the overlap, 24 h by default)',
    prepare(flags) {
      const accountId = required(flags, 'account');
      return async ({ accounts }, config) => {
        await mustGet(accounts, accountId);
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
      };
    },
  },
};

function usage(): string {
  const width = Math.max(...Object.entries(commands).map(([name, c]) => name.length + c.args.length + 1));
  return lines(
    'Usage: npm run admin -- <command> [flags]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${`${name} ${c.args}`.padEnd(width)}  ${c.about}`),
    `  ${'help'.padEnd(width)}  This text`,
    '',
    'Flags for every command:',
    '  --json  Print one JSON object on stdout instead of text (npm run -s admin: npm prints no banner above it)',
    '  --aws   Use AWS (default credentials, AWS_REGION; TABLE_NAME for the table, the stack for doctor)',
    '',
    'Database: DYNAMODB_ENDPOINT if set; else AWS with --aws; else the local stack running on DATA_DIR',
    "(default .data), or DATA_DIR's database directly when no stack is running.",
  );
}

function required(
  flags: Flags,
  name: 'account' | 'amount' | 'credits' | 'key' | 'name' | 'days' | 'bot',
): string {
  const value = flags[name];
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

function integer(flags: Flags, name: 'amount' | 'credits'): number {
  const raw = required(flags, name);
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new UsageError(`--${name} must be a whole number, got '${raw}'`);
  }
  return value;
}

async function mustGet(accounts: Stores['accounts'], accountId: string) {
  const account = await accounts.get(accountId);
  if (!account) throw new NotFoundError(`account ${accountId} not found`);
  return account;
}

/** Oldest first: the store lists keys in key-id order, which is random. */
async function keysByAge(accounts: Stores['accounts'], accountId: string) {
  const list = await accounts.listKeys(accountId);
  return list.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

function keyJson(k: { keyId: string; createdAt: string; revokedAt?: string }) {
  return { key_id: k.keyId, created_at: k.createdAt, revoked_at: k.revokedAt ?? null };
}

function keyLine(k: { keyId: string; createdAt: string; revokedAt?: string }): string {
  return `${k.keyId}  created ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`;
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const lines = (...ls: string[]) => `${ls.join('\n')}\n`;

/** parseArgs reads `--amount -5` as two flags; a negative number is the one value that may start with a dash. */
function joinNegativeValues(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const prev = out.at(-1);
    const takesValue =
      prev?.startsWith('--') && options[prev.slice(2) as keyof typeof options]?.type === 'string';
    if (takesValue && /^-\d+$/.test(arg)) out[out.length - 1] = `${prev}=${arg}`;
    else out.push(arg);
  }
  return out;
}

/** Parses and validates everything up front, so a usage error never opens a database. */
function plan(args: string[]): { flags: Flags; work?: ReturnType<Command['prepare']>; command?: Command } {
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({ args: joinNegativeValues(args), options, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // Node's messages span lines; for unknown options the rest suggests `--`, which no command takes.
    const message = e.message.replace(/\s*\n\s*/g, ' ');
    throw new UsageError(e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? message.split('. ')[0]! : message);
  }
  const { values: flags, positionals } = parsed;
  if (flags.help || positionals.length === 0 || (positionals[0] === 'help' && positionals.length === 1)) {
    return { flags };
  }
  // One-word commands (doctor) take no second positional.
  const name = commands[positionals[0]!] ? positionals[0]! : positionals.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command '${name}'`);
  const words = name.split(' ').length;
  if (positionals.length > words) throw new UsageError(`unexpected argument '${positionals[words]}'`);
  const accepted = new Set([...command.args.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
  for (const flag of Object.keys(flags)) {
    if (flag !== 'json' && flag !== 'aws' && !accepted.has(flag)) {
      throw new UsageError(`'${name}' does not take --${flag}`);
    }
  }
  return { flags, work: command.prepare(flags), command };
}

function print(flags: Flags, result: Result): void {
  if (!flags.json) {
    process.stdout.write(result.text);
    return;
  }
  if (npmBannerOnStdout() && !process.stdout.isTTY) {
    process.stderr.write(
      "warning: npm printed its '> meeting-bot-service admin' banner on stdout above this JSON: run " +
        "'npm run -s admin -- … --json' for JSON alone.\n",
    );
  }
  process.stdout.write(`${JSON.stringify(result.json, null, 2)}\n`);
}

/**
 * Whether `npm run admin` wrote its banner to stdout: it does unless npm is silent (`npm run -s`) or in its JSON mode
 * (`--json` given to npm itself, which sends the banner to stderr).
 */
function npmBannerOnStdout(): boolean {
  const env = process.env;
  return (
    env.npm_lifecycle_event === 'admin' &&
    env.npm_config_json !== 'true' &&
    env.npm_config_loglevel !== 'silent'
  );
}

async function main(args: string[]): Promise<number> {
  let flags: Flags;
  let work: ReturnType<Command['prepare']> | undefined;
  let command: Command | undefined;
  try {
    ({ flags, work, command } = plan(args));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${err.message}\nRun 'npm run admin -- help' for usage.\n`);
    return 2;
  }
  if (!work) {
    process.stdout.write(usage());
    return 0;
  }
  if ('check' in work) {
    try {
      const result = await work.check();
      print(flags, result);
      return result.exitCode;
    } catch (err) {
      const e = err as Error;
      process.stderr.write(`error: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}\n`);
      return 1;
    }
  }

  let target: Target | undefined;
  try {
    target = await openTarget({ aws: flags.aws === true, mayCreate: command?.createsData === true });
    const { adapters } = target;
    const result = await work(
      adapters.stores,
      adapters.config,
      () => adapters.sqs,
      () => adapters.outbox,
      () => adapters.recordings,
    );
    print(flags, result);
    return 0;
  } catch (err) {
    if (err instanceof NoDatabaseError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    if (err instanceof NotFoundError || err instanceof AccountNotFoundError) {
      // The everyday cause is the wrong database (another DATA_DIR, the local stack instead of AWS): say which.
      process.stderr.write(`error: ${err.message}\n  Looked in ${target?.where}.\n  ${otherDatabases}\n`);
      return 1;
    }
    // Connection and credential failures are an operator's everyday errors: the name and message say enough.
    const e = err as Error;
    process.stderr.write(`error: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}\n`);
    return 1;
  } finally {
    await target?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));

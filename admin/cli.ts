// Operator CLI for accounts, API keys, credits, webhook secrets and the deployment preflight: `npm run admin -- help`.
// This file parses the arguments, prints the help, the text or JSON and sets the exit code; admin/commands/ does the work.
import { parseArgs } from 'node:util';
import { AccountNotFoundError } from '../core/accounts/errors';
import { accountsCommands } from './commands/accounts';
import {
  type Command,
  type Flags,
  lines,
  NotFoundError,
  options,
  type Result,
  UsageError,
} from './commands/command';
import { creditsCommands } from './commands/credits';
import { dataCommands } from './commands/data';
import { deliveriesCommands } from './commands/deliveries';
import { doctorCommands } from './commands/doctor';
import { keysCommands } from './commands/keys';
import { webhooksCommands } from './commands/webhooks';
import { NoDatabaseError, openTarget, otherDatabases, type Target } from './target';

// Node 20 is supported here; the SDK's notice about its future Node 22 floor would only clutter the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** In the order the help lists them. */
const commands: Record<string, Command> = {
  ...deliveriesCommands,
  ...doctorCommands,
  ...accountsCommands,
  ...dataCommands,
  ...keysCommands,
  ...creditsCommands,
  ...webhooksCommands,
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
      return failed(err as Error);
    }
  }

  let target: Target | undefined;
  try {
    target = await openTarget({ aws: flags.aws === true, mayCreate: command?.createsData === true });
    const result = await work(target.adapters);
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
    return failed(err as Error);
  } finally {
    await target?.close();
  }
}

function failed(e: Error): number {
  process.stderr.write(`error: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}\n`);
  return 1;
}

process.exitCode = await main(process.argv.slice(2));

// `credits add`: grant or remove an account's credits, once per request id.
import { type Command, integer, required, signed, UsageError } from './command';

export const creditsCommands: Record<string, Command> = {
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
      return async ({ stores: { ledger } }) => {
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
};

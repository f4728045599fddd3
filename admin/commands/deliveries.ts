// `deliveries redrive`: move deliveries that gave up back from the DLQ to the delivery queue.
import { redriveDeliveries } from '../../core/adapters/sqs/redrive';
import { type Command, lines, NotFoundError, UsageError } from './command';

export const deliveriesCommands: Record<string, Command> = {
  'deliveries redrive': {
    args: '[--bot BOT_ID]',
    about: 'Move deliveries that gave up (DLQ) back to the delivery queue, for one bot or all',
    prepare(flags) {
      const botId = flags.bot;
      if (botId !== undefined && !/^[0-9a-f-]{36}$/i.test(botId))
        throw new UsageError('--bot must be a bot id (UUID)');
      return async (adapters) => {
        const { config } = adapters;
        if (!config.DELIVERY_QUEUE_URL || !config.DELIVERY_DLQ_URL) {
          throw new NotFoundError(
            'no delivery queues: start the local stack (npm start), or with --aws set QUEUE_URLS to {"DELIVERY_QUEUE_URL":…,"DELIVERY_DLQ_URL":…}',
          );
        }
        const { redriven, skipped } = await redriveDeliveries(
          {
            sqs: adapters.sqs,
            queueUrl: config.DELIVERY_QUEUE_URL,
            dlqUrl: config.DELIVERY_DLQ_URL,
            deliveries: adapters.stores.deliveries,
          },
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
};

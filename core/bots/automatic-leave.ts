// A bot's leave settings: bot_config.automatic_leave with the deployment's defaults filled in.
import type { Config } from '../config';
import type { AutomaticLeave, BotConfig, BotConfigRequest } from '../schemas/bot-config';

export type LeaveDefaults = Pick<
  Config,
  'EVERYONE_LEFT_TIMEOUT_MS' | 'IDLE_TIMEOUT_MS' | 'WAITING_ROOM_TIMEOUT_MS' | 'MAX_DURATION_MS'
>;

/** The deployment's defaults (configuration, in milliseconds) as leave settings in seconds. */
export function defaultAutomaticLeave(config: LeaveDefaults): AutomaticLeave {
  return {
    everyone_left_timeout_seconds: config.EVERYONE_LEFT_TIMEOUT_MS / 1000,
    silence_timeout_seconds: config.IDLE_TIMEOUT_MS / 1000,
    waiting_room_timeout_seconds: config.WAITING_ROOM_TIMEOUT_MS / 1000,
    max_duration_seconds: config.MAX_DURATION_MS / 1000,
  };
}

/**
 * bot_config as a session stores it: what the request gave, over the deployment's defaults, with the older
 * top-level max_duration_seconds folded into automatic_leave (the schema refuses the two when they differ).
 * The join stores its result, so a bot keeps the defaults in force when it was started. Resolving a stored
 * bot_config again changes nothing; one stored before automatic_leave existed gets it here.
 */
export function normalizeBotConfig(botConfig: BotConfigRequest, config: LeaveDefaults): BotConfig {
  const { automatic_leave: given = {}, max_duration_seconds: alias, ...rest } = botConfig;
  const defaults = defaultAutomaticLeave(config);
  return {
    ...rest,
    automatic_leave: {
      everyone_left_timeout_seconds:
        given.everyone_left_timeout_seconds ?? defaults.everyone_left_timeout_seconds,
      silence_timeout_seconds: given.silence_timeout_seconds ?? defaults.silence_timeout_seconds,
      waiting_room_timeout_seconds:
        given.waiting_room_timeout_seconds ?? defaults.waiting_room_timeout_seconds,
      max_duration_seconds: given.max_duration_seconds ?? alias ?? defaults.max_duration_seconds,
    },
  };
}

/**
 * The leave settings a bot goes by: its session's. A session stored before automatic_leave existed has
 * only the older max_duration_seconds; it gets the rest from the bot's own configuration.
 */
export function automaticLeaveOf(botConfig: BotConfig, config: LeaveDefaults): AutomaticLeave {
  return normalizeBotConfig(botConfig, config).automatic_leave;
}

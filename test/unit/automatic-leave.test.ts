// bot_config.automatic_leave: the bounds and the alias the API enforces, and how the join fills in
// the deployment's defaults.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { automaticLeaveOf, normalizeBotConfig } from '../../core/bots/automatic-leave';
import { loadConfig } from '../../core/config';
import { type BotConfig, botConfigSchema } from '../../core/schemas/bot-config';
import { describeIssues } from '../../core/schemas/validate';

/** The 400's detail for a start request with this bot_config (its other members valid), or null when accepted. */
const withBotConfig = z.strictObject({ bot_config: botConfigSchema });
const problem = (botConfig: unknown) => {
  const result = withBotConfig.safeParse({ bot_config: botConfig });
  return result.success ? null : describeIssues(result.error);
};

describe('bot_config.automatic_leave in the start request', () => {
  it('accepts each member at its bounds', () => {
    for (const [everyone, silence, waiting, max] of [
      [0, 10, 10, 60],
      [3600, 86_400, 3600, 14_400],
    ]) {
      const automatic_leave = {
        everyone_left_timeout_seconds: everyone,
        silence_timeout_seconds: silence,
        waiting_room_timeout_seconds: waiting,
        max_duration_seconds: max,
      };
      expect(problem({ automatic_leave }), JSON.stringify(automatic_leave)).toBeNull();
    }
  });

  it.each([
    ['everyone_left_timeout_seconds', -1, 'from 0 to 3600'],
    ['everyone_left_timeout_seconds', 3601, 'from 0 to 3600'],
    ['everyone_left_timeout_seconds', 1.5, 'from 0 to 3600'],
    ['silence_timeout_seconds', 9, 'from 10 to 86400'],
    ['silence_timeout_seconds', 86_401, 'from 10 to 86400'],
    ['silence_timeout_seconds', '300', 'from 10 to 86400'],
    ['waiting_room_timeout_seconds', 5, 'from 10 to 3600'],
    ['waiting_room_timeout_seconds', 3601, 'from 10 to 3600'],
    ['max_duration_seconds', 59, 'from 60 to 14400'],
    ['max_duration_seconds', 14_401, 'from 60 to 14400'],
  ])('refuses %s %j with a message naming the field and its range', (field, value, range) => {
    expect(problem({ automatic_leave: { [field]: value } })).toBe(
      `bot_config.automatic_leave.${field}: must be a whole number of seconds ${range}`,
    );
  });

  it('refuses unknown members (a typo surfaces)', () => {
    expect(problem({ automatic_leave: { silence_timeout: 60 } })).toBe(
      'bot_config.automatic_leave.silence_timeout: unknown field',
    );
  });

  it('keeps the older bot_config.max_duration_seconds as an alias, with the same bounds', () => {
    expect(problem({ max_duration_seconds: 600 })).toBeNull();
    expect(problem({ max_duration_seconds: 600, automatic_leave: { max_duration_seconds: 600 } })).toBeNull();
    expect(problem({ max_duration_seconds: 30 })).toBe(
      'bot_config.max_duration_seconds: must be a whole number of seconds from 60 to 14400',
    );
  });

  it('refuses the alias and automatic_leave.max_duration_seconds when they differ, naming both', () => {
    expect(problem({ max_duration_seconds: 600, automatic_leave: { max_duration_seconds: 900 } })).toBe(
      'bot_config.max_duration_seconds: is 600 but bot_config.automatic_leave.max_duration_seconds is 900; give one of them (max_duration_seconds is its older name)',
    );
  });

  it('fills no defaults itself: those are the deployment’s', () => {
    expect(botConfigSchema.parse({ automatic_leave: {} })).not.toHaveProperty('max_duration_seconds');
    expect(botConfigSchema.parse({ automatic_leave: {} }).automatic_leave).toEqual({});
  });
});

describe('the join fills in the deployment’s defaults', () => {
  const defaults = loadConfig({});
  const parse = (botConfig: unknown) => botConfigSchema.parse(botConfig);

  it('by default: everyone left 2 s, silence 300 s (spec §8), waiting room 600 s, max duration 4 h', () => {
    expect(normalizeBotConfig(parse({}), defaults).automatic_leave).toEqual({
      everyone_left_timeout_seconds: 2,
      silence_timeout_seconds: 300,
      waiting_room_timeout_seconds: 600,
      max_duration_seconds: 14_400,
    });
  });

  it('from the configuration, and a bot’s own values over them', () => {
    const config = loadConfig(
      { IDLE_TIMEOUT_MS: '2500', MAX_DURATION_MS: '3600000' },
      { EVERYONE_LEFT_TIMEOUT_MS: 5000, WAITING_ROOM_TIMEOUT_MS: 30_000 },
    );
    expect(normalizeBotConfig(parse({}), config).automatic_leave).toEqual({
      everyone_left_timeout_seconds: 5,
      silence_timeout_seconds: 2.5,
      waiting_room_timeout_seconds: 30,
      max_duration_seconds: 3600,
    });
    expect(
      normalizeBotConfig(parse({ automatic_leave: { everyone_left_timeout_seconds: 0 } }), config)
        .automatic_leave,
    ).toMatchObject({ everyone_left_timeout_seconds: 0, silence_timeout_seconds: 2.5 });
  });

  it('folds the alias into automatic_leave and stores it once', () => {
    const stored = normalizeBotConfig(parse({ name: 'Scribe', max_duration_seconds: 600 }), defaults);
    expect(stored).toEqual({
      name: 'Scribe',
      video_mode: 'static',
      voice: 'Joanna',
      automatic_leave: {
        everyone_left_timeout_seconds: 2,
        silence_timeout_seconds: 300,
        waiting_room_timeout_seconds: 600,
        max_duration_seconds: 600,
      },
    });
    // Resolving a stored bot_config again changes nothing, whatever the configuration says now.
    expect(normalizeBotConfig(stored, loadConfig({ IDLE_TIMEOUT_MS: '1000' }))).toEqual(stored);
  });

  it('a session stored before automatic_leave existed keeps its max_duration_seconds', () => {
    const legacy = { name: 'Old', video_mode: 'static', voice: 'Joanna', max_duration_seconds: 1200 };
    expect(automaticLeaveOf(legacy as unknown as BotConfig, defaults)).toEqual({
      everyone_left_timeout_seconds: 2,
      silence_timeout_seconds: 300,
      waiting_room_timeout_seconds: 600,
      max_duration_seconds: 1200,
    });
  });
});

describe('configuration of the defaults', () => {
  it.each([
    ['EVERYONE_LEFT_TIMEOUT_MS', '-1'],
    ['EVERYONE_LEFT_TIMEOUT_MS', '3600001'],
    ['IDLE_TIMEOUT_MS', '0'],
    ['MAX_DURATION_MS', '14400001'],
  ])('refuses %s=%s at start-up (a setting or a tunable)', (name, value) => {
    // A tunable's error names it inside the variable that carries it (MEETING_BOT_TEST_TUNABLES).
    expect(() => loadConfig({ [name]: value }, { [name]: value })).toThrow(
      new RegExp(`invalid configuration: (?:MEETING_BOT_TEST_TUNABLES\\.)?${name}`),
    );
  });
});

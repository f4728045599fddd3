// The settings a deployment sets stay few and documented: core/config.ts reads only its schema's names from the
// environment, each listed in docs/configuration.md; the internal tunables come only from code or the test variable.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, loadConfig } from '../../core/config';
import { tunableNames } from '../../core/tunables';

const settings = Object.keys(configSchema.shape);
const docs = readFileSync('docs/configuration.md', 'utf8');

describe('configuration', () => {
  it('reads a short list of environment variables, every one documented', () => {
    // A ratchet: lower it as settings are grouped or become constants, never raise it.
    expect(settings.length).toBeLessThanOrEqual(65);
    expect(settings.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  });

  it('reads no tunable from the environment: only from code or MEETING_BOT_TEST_TUNABLES', () => {
    expect(settings.filter((name) => tunableNames.has(name))).toEqual([]);
    expect(loadConfig({ STOP_POLL_MS: '20' }).STOP_POLL_MS).toBe(500);
    expect(loadConfig({ MEETING_BOT_TEST_TUNABLES: '{"STOP_POLL_MS":20}' }).STOP_POLL_MS).toBe(20);
    expect(
      loadConfig({ MEETING_BOT_TEST_TUNABLES: '{"STOP_POLL_MS":20}' }, { STOP_POLL_MS: 30 }).STOP_POLL_MS,
    ).toBe(30);
    expect(() => loadConfig({ MEETING_BOT_TEST_TUNABLES: '{"STOP_POLL_MS":1}' })).toThrow(/STOP_POLL_MS/);
    expect(() => loadConfig({ MEETING_BOT_TEST_TUNABLES: 'nope' })).toThrow(/MEETING_BOT_TEST_TUNABLES/);
  });
});

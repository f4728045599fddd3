// The settings a deployment sets stay few and documented: core/config.ts reads only its schema's names from the
// environment, each listed in docs/configuration.md, the wiring grouped in JSON variables; the internal tunables come
// only from code or the test variable.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, groupNames, loadConfig } from '../../core/config';

const settings = Object.keys(configSchema.shape);
const docs = readFileSync('docs/configuration.md', 'utf8');

describe('configuration', () => {
  it('reads a short list of environment variables, every one documented', () => {
    // A ratchet: lower it as settings are grouped or become constants, never raise it.
    expect(settings.length).toBeLessThanOrEqual(30);
    expect(settings.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  });

  it('reads no tunable from the environment: only from code or MEETING_BOT_TEST_TUNABLES', () => {
    const grouped = Object.values(groupNames).flatMap((names) => [...names]);
    expect(settings.filter((name) => grouped.includes(name))).toEqual([]);
    expect(grouped.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
    expect(loadConfig({ STOP_POLL_MS: '20' }).STOP_POLL_MS).toBe(500);
    expect(loadConfig({ MEETING_BOT_TEST_TUNABLES: '{"STOP_POLL_MS":20}' }).STOP_POLL_MS).toBe(20);
    expect(
      loadConfig({ MEETING_BOT_TEST_TUNABLES: '{"STOP_POLL_MS":20}' }, { STOP_POLL_MS: 30 }).STOP_POLL_MS,
    ).toBe(30);
    expect(() => loadConfig({ MEETING_BOT_TEST_TUNABLES: '{"STOP_POLL_MS":1}' })).toThrow(/STOP_POLL_MS/);
    expect(() => loadConfig({ MEETING_BOT_TEST_TUNABLES: 'nope' })).toThrow(/MEETING_BOT_TEST_TUNABLES/);
    expect(() => loadConfig({}, { LOG_LEVEL: 'debug' })).toThrow(/not settable in code: LOG_LEVEL/);
  });

  it('reads the wiring from its JSON variables, each name validated', () => {
    const config = loadConfig({
      QUEUE_URLS: '{"CONTROL_QUEUE_URL":"https://sqs.example/control"}',
      BOT_RUNTIME: '{"BOT_SUBNET_IDS":"subnet-a,subnet-b","BOT_ASSIGN_PUBLIC_IP":false}',
      LOCAL_STACK: '{"ALLOW_LOCAL_ROOMS":true}',
    });
    expect(config.CONTROL_QUEUE_URL).toBe('https://sqs.example/control');
    expect(config.RESULTS_QUEUE_URL).toBe('');
    expect(config.BOT_SUBNET_IDS).toEqual(['subnet-a', 'subnet-b']);
    expect(config.BOT_ASSIGN_PUBLIC_IP).toBe(false);
    expect(config.ALLOW_LOCAL_ROOMS).toBe(true);
    expect(config).not.toHaveProperty('QUEUE_URLS');
    expect(loadConfig({ CONTROL_QUEUE_URL: 'https://sqs.example/control' }).CONTROL_QUEUE_URL).toBe('');
    expect(() => loadConfig({ LOCAL_STACK: '{"DYNAMODB_ENDPOINT":"nope"}' })).toThrow(
      /LOCAL_STACK\.DYNAMODB_ENDPOINT/,
    );
  });
});

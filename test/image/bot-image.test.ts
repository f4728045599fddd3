// The bot-task image (`npm run image`), run as Fargate runs the task — uid 1000, read-only root with a tmpfs /tmp,
// a 64 MB /dev/shm, no capabilities, an init process — by a local stack on this machine (BOT_RUNNER=container, the
// host's network so the stack on loopback is reachable). Nothing leaves the machine: Daily's hosts resolve to
// loopback inside the containers (--add-host), so no request of daily-js reaches Daily.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxMessage } from '../../core/control/outbox';
import { botStopTimeoutSeconds } from '../../infra/constructs/bot-runtime';
import { defaultBotImage, detectEngine, imageSize } from '../../local/container-engine';
import { buildImage, imageIsCurrent, maxImageBytes, megabytes } from '../../scripts/image/build';
import { stubbedDailyBots } from '../browser/daily-stub-module';
import { freePort } from '../support/free-port';
import { startTestStack, type TestStack } from '../support/local-stack';
import { requires, skipReason } from '../support/requirements';
import { until } from '../support/until';
import { type NameCardReport, nameCardReportPrefix } from './name-card-report';

const engine = detectEngine();
const image = process.env.BOT_IMAGE || defaultBotImage;
const skip = skipReason(
  requires.other(
    'a container engine',
    engine ? undefined : 'no container engine here (docker with its daemon running, or podman)',
  ),
);

/** Where daily-js 0.92 reaches first (its call machine on 3 CDN hosts; Sentry for the failure) and the test room. */
const dailyHosts = [
  'c.daily.co',
  'c.dailywebrtc.com',
  'c.dailywebrtc.net',
  'o77906.ingest.sentry.io',
  'acme.daily.co',
];
const dailyRoom = 'https://acme.daily.co/standup';

/** Settings of a stack whose bots run in the image and join Daily rooms without a Daily account or Polly. */
async function containerEnv(extraRunArgs: string[] = []): Promise<Record<string, string>> {
  return {
    BOT_RUNNER: 'container',
    BOT_IMAGE: image,
    BOT_CONTAINER_ARGS: [...dailyHosts.map((h) => `--add-host=${h}:127.0.0.1`), ...extraRunArgs].join(','),
    // Warnings and errors of the bots reach their log files (the name card's report is one).
    LOG_LEVEL: 'warn',
    END_OF_TURN_SILENCE_MS: '300',
    LOCAL_SPEECH_MS_PER_CHAR: '10',
    TRANSCRIPT_FLUSH_MS: '200',
    // daily-js gives up on its CDN in about 6 s; the join's own deadline must not come first.
    JOIN_TIMEOUT_MS: '45000',
    // No Daily REST call (the bot joins with the caller's token), and Polly is a closed local port.
    DAILY_API_KEY: '',
    AWS_ACCESS_KEY_ID: 'stub',
    AWS_SECRET_ACCESS_KEY: 'stub',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_POLLY: `http://127.0.0.1:${await freePort()}`,
  };
}

async function statusOf(stack: TestStack, key: string, botId: string) {
  return (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
}

/** The session's status once it has ended. */
function endOf(stack: TestStack, key: string, botId: string) {
  return until(async () => {
    const s = await statusOf(stack, key, botId);
    return s.status !== 'running' && s;
  }, 60_000);
}

async function join(stack: TestStack, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.bot_id as string;
}

/** A person in local room `room` who answers each question with the next of `answers`, and stays. */
async function personIn(stack: TestStack, room: string, name: string, answers: string[]): Promise<void> {
  await stack.request('POST', '/rooms', { body: { name: room } });
  await stack.request('POST', `/rooms/${room}/participants`, {
    body: { name, answers: answers.map((say) => ({ say, delay_ms: 200 })), leave_at_ms: 300_000 },
  });
}

describe.skipIf(skip)('the bot image, run as Fargate runs it', () => {
  let size: number;
  beforeAll(async () => {
    // The image `npm run image` built, when it was built from the sources as they are; else built now.
    const current = await imageIsCurrent(engine!, image);
    size = (current && (await imageSize(engine!, image))) || (await buildImage(engine!, image));
  });

  it('(e) is under 1.1 GB', () => {
    console.info(`${image}: ${megabytes(size)} (${engine!.command})`);
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThan(maxImageBytes);
  });

  describe('on a local stack', () => {
    let stack: TestStack;
    let key: string;
    beforeAll(async () => {
      stack = await startTestStack(await containerEnv());
      ({ apiKey: key } = await stack.account(50));
    });
    afterAll(() => stack?.close());

    it('(a) joins a local room and completes a short interview with a transcript', async () => {
      await personIn(stack, 'interview', 'Casey', ['I restore lost data for our customers.']);
      const botId = await join(stack, key, {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/interview`,
        bot_config: {
          name: 'Iris',
          bot_prompt: 'You interview candidates. Ask:\n1. What do you do at work?',
          bot_greeting: 'Hi Casey, thanks for joining',
        },
      });
      const done = await until(async () => {
        const s = await statusOf(stack, key, botId);
        return s.transcript?.includes('That was my last question') && s;
      }, 90_000);
      expect(done.transcript).toContain('Casey: I restore lost data for our customers.');
      expect(done.transcript).toContain('Iris: Hi Casey, thanks for joining.');
      await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
      const ended = await endOf(stack, key, botId);
      expect(ended).toMatchObject({ status: 'completed', exit_reason: 'force_leave', error: null });
      expect(ended.transcript).toContain('Casey: I restore lost data for our customers.');
      // Started at once as its own container: containers are never pooled, so the join offers the session to nobody.
      const session = await stack.deps.sessions.get(botId);
      expect(session).toMatchObject({ startPath: 'cold' });
      expect(session?.poolOfferedAt).toBeUndefined();
    });

    it('(b) with provider "daily" loads the page and the real daily-js in its Chromium, and fails only at Daily’s network', async () => {
      const started = Date.now();
      const botId = await join(stack, key, { room_url: dailyRoom, bot_config: { name: 'Iris' } });
      const failed = await until(
        () =>
          stack.messagesSeen.find(
            (m): m is Extract<OutboxMessage, { kind: 'bot_join_failed' }> =>
              m.kind === 'bot_join_failed' && m.event.bot_id === botId,
          ),
        90_000,
      );
      // daily-js's own words when none of its CDN hosts gives it the call machine: the page, our harness and
      // daily-js loaded, Chromium ran them, join() began and met the network. Not the join deadline, not a crash.
      expect(failed.event.error_message).toContain('Failed to load call object bundle');
      expect(Date.now() - started).toBeLessThan(45_000);
      const ended = await endOf(stack, key, botId);
      expect(ended.status).toBe('failed');
      const log = readFileSync(stack.runner.logFile(botId), 'utf8');
      expect(log).toMatch(
        /"msg":"could not join the room".*"error_message":"Failed to load call object bundle\."/,
      );
      expect(log).not.toMatch(/bot page error|crashed|ENOENT|EACCES|EROFS/);
    });

    it('(d) a SIGTERM (the leave’s StopTask) ends it within the task’s stop timeout, exit code 0', async () => {
      await personIn(stack, 'stop', 'Dana', []);
      const botId = await join(stack, key, {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/stop`,
        bot_config: { name: 'Iris', bot_greeting: 'Hello Dana' },
      });
      await until(async () => (await statusOf(stack, key, botId)).transcript?.includes('Hello Dana'), 90_000);
      const exited = stack.runner.exited(botId)!;
      expect(exited).toBeDefined();
      const stopped = Date.now();
      // The leave endpoint records the request, then stops the task: SIGTERM, passed on by the engine's client.
      await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
      // bot-task/main.ts: a bot that left (here: force_leave) exits 0; only a lost bot exits non-zero (75).
      expect(await exited).toEqual({ code: 0, signal: null });
      const seconds = (Date.now() - stopped) / 1000;
      console.info(`SIGTERM to exit: ${seconds.toFixed(1)} s (stop timeout ${botStopTimeoutSeconds} s)`);
      expect(seconds).toBeLessThan(botStopTimeoutSeconds);
      const ended = await endOf(stack, key, botId);
      expect(ended).toMatchObject({ status: 'completed', exit_reason: 'force_leave' });
      expect(ended.transcript).toContain('Iris: Hello Dana');
    });

    it('a SIGKILL (a crash) ends the container itself, not only the engine’s client', async () => {
      await personIn(stack, 'crash', 'Eve', []);
      const botId = await join(stack, key, {
        provider: 'local',
        room_url: `${stack.baseUrl}/rooms/crash`,
        bot_config: { name: 'Iris', bot_greeting: 'Hello Eve' },
      });
      await until(async () => (await statusOf(stack, key, botId)).transcript?.includes('Hello Eve'), 90_000);
      const exited = stack.runner.exited(botId)!;
      stack.runner.signal(botId, 'SIGKILL');
      // The engine's client reports the container's end: killed by SIGKILL (128 + 9).
      expect(await exited).toEqual({ code: 137, signal: null });
      const { command, globalArgs } = engine!;
      const names = execFileSync(command, [...globalArgs, 'ps', '--all', '--format', '{{.Names}}'], {
        encoding: 'utf8',
      });
      expect(names.split('\n')).not.toContain(`meeting-bot-${botId}`);
      // Its replacement (attempt 1) takes over; the leave stops it.
      await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    });
  });

  describe('(c) the name card it sends', () => {
    /** The name: glyphs of very different widths, so boxes of one width (missing glyphs) cannot pass for it. */
    const name = 'Wim Illi';

    /** Joins a stand-in Daily room with the name-card stub, returns the report of the bot's first video frames. */
    async function nameCard(extraRunArgs: string[] = []): Promise<NameCardReport> {
      const daily = await stubbedDailyBots({}, '../image/name-card-stub');
      const stack = await startTestStack({ ...(await containerEnv(extraRunArgs)), ...daily.env });
      try {
        const { apiKey: key } = await stack.account(10);
        const botId = await join(stack, key, { room_url: dailyRoom, bot_config: { name } });
        const line = await until(
          () =>
            existsSync(stack.runner.logFile(botId)) &&
            readFileSync(stack.runner.logFile(botId), 'utf8')
              .split('\n')
              .find((l) => l.includes(nameCardReportPrefix)),
          90_000,
        );
        await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
        const detail: string = JSON.parse(line).detail;
        return JSON.parse(detail.slice(detail.indexOf(nameCardReportPrefix) + nameCardReportPrefix.length));
      } finally {
        await stack.close();
        daily.close();
      }
    }

    /** The name's inked columns grouped into runs (glyphs, roughly): their count and widths. */
    function glyphRuns(report: NameCardReport): number[] {
      const runs: number[] = [];
      let run = 0;
      for (const ink of [...report.nameInk, 0]) {
        if (ink > 0) run++;
        else if (run > 0) {
          runs.push(run);
          run = 0;
        }
      }
      return runs;
    }

    it('shows the name in real glyphs (fonts present): inked, in runs of different widths', async () => {
      const report = await nameCard();
      expect([report.width, report.height]).toEqual([640, 360]);
      // The card's background (#1f2937), not a black or missing frame.
      expect(report.corner.map((c) => Math.round(c / 16))).toEqual([2, 3, 3]);
      const runs = glyphRuns(report);
      console.info(
        `name card: ${report.nameInk.reduce((a, b) => a + b, 0)} ink pixels, runs ${runs.join(' ')}`,
      );
      expect(report.nameInk.reduce((a, b) => a + b, 0)).toBeGreaterThan(150);
      expect(runs.length).toBeGreaterThanOrEqual(5);
      // A "W" is several times as wide as an "i": missing-glyph boxes all have one width.
      expect(Math.max(...runs) / Math.min(...runs)).toBeGreaterThanOrEqual(3);
    });

    it('the check fails on an image whose fonts are hidden (it can fail)', async () => {
      // An empty tmpfs over each (podman would copy the image's files into it unless told not to).
      const empty = engine!.kind === 'podman' ? ':notmpcopyup' : '';
      const report = await nameCard([
        `--tmpfs=/usr/share/fonts${empty}`,
        `--tmpfs=/var/cache/fontconfig${empty}`,
      ]);
      const runs = glyphRuns(report);
      console.info(`without fonts: runs ${runs.join(' ') || 'none'}`);
      const glyphs = runs.length >= 5 && Math.max(...runs) / Math.min(...runs) >= 3;
      expect(glyphs).toBe(false);
    });
  });
});

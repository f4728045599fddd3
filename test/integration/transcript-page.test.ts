// GET /api/bot/{bot_id}/transcript over real HTTP against the local stack: a 3-hour transcript paged
// through, a running bot's lines as they are saved, and the 400s and 404s.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Utterance } from '../../core/bots/transcript';
import type { TaskRunner } from '../../core/ports/task-runner';
import { inSegments, threeHours, threeHourTranscript } from '../fixtures/transcripts/three-hour';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

/** Records starts instead of spawning bot processes: these bots' lines are written straight to the store. */
const recordingRunner: TaskRunner = {
  start: async (botId) => ({ taskRef: `test:${botId}` }),
  stop: async () => {},
};

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = recordingRunner;
  ({ apiKey: key } = await stack.account(100));
});
afterAll(() => stack?.close());

async function startBot(apiKey = key): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', {
    key: apiKey,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/transcript-page` },
  });
  expect(res.status).toBe(201);
  return res.body.bot_id;
}

async function saveAll(botId: string, segments: Utterance[][]) {
  for (const [i, lines] of segments.entries()) await stack.deps.transcripts.saveSegment(botId, i + 1, lines);
}

const page = (botId: string, query = '', apiKey = key) =>
  stack.request('GET', `/api/bot/${botId}/transcript${query}`, { key: apiKey });

/** What the endpoint returns for the n-th line (1-based) of `lines`. */
const asItem = (lines: readonly Utterance[], seq: number) => ({
  speaker: lines[seq - 1]!.speaker,
  participant_id: lines[seq - 1]!.participant_id,
  text: lines[seq - 1]!.text,
  started_at: lines[seq - 1]!.started_at,
  seq,
  is_bot: lines[seq - 1]!.is_bot ?? false,
});

/** Follows next_after_seq from the start; returns every item in the order received and the pages' sizes. */
async function pageThrough(botId: string, limit: number) {
  // biome-ignore lint/suspicious/noExplicitAny: items are checked against the expected lines
  const items: any[] = [];
  const sizes: number[] = [];
  let after = 0;
  for (let n = 0; n < 100; n++) {
    const res = await page(botId, `?after_seq=${after}&limit=${limit}`);
    expect(res.status).toBe(200);
    items.push(...res.body.utterances);
    sizes.push(res.body.utterances.length);
    expect(res.body.last_seq).toBe(threeHours.lines);
    if (res.body.next_after_seq === null) return { items, sizes };
    expect(res.body.next_after_seq).toBe(res.body.utterances.at(-1).seq);
    after = res.body.next_after_seq;
  }
  throw new Error('next_after_seq never became null');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('a 3-hour transcript', () => {
  const lines = threeHourTranscript();

  it('pages through every line exactly once, in order, with limit 100 and with limit 1000', async () => {
    const botId = await startBot();
    const segments = inSegments(lines, 15);
    expect(segments.length).toBeGreaterThan(250);
    await saveAll(botId, segments);
    await stack.deps.sessions.updateRunning(botId, {
      status: 'completed',
      completedAt: new Date().toISOString(),
      exitReason: 'participant_left',
    });

    for (const limit of [100, 1000]) {
      const { items, sizes } = await pageThrough(botId, limit);
      expect(items.map((u) => u.seq)).toEqual(lines.map((_, i) => i + 1));
      expect(items).toEqual(lines.map((_, i) => asItem(lines, i + 1)));
      expect(sizes).toEqual([
        ...Array(Math.floor(threeHours.lines / limit)).fill(limit),
        ...(threeHours.lines % limit ? [threeHours.lines % limit] : []),
      ]);
    }

    const first = await page(botId);
    expect(first.body).toMatchObject({
      bot_id: botId,
      status: 'completed',
      next_after_seq: 100,
      last_seq: 2500,
    });
    expect(first.body.utterances).toHaveLength(100);
    expect(Object.keys(first.body).sort()).toEqual([
      'bot_id',
      'last_seq',
      'next_after_seq',
      'status',
      'utterances',
    ]);
    // Past the end: nothing, and nothing more.
    const beyond = await page(botId, '?after_seq=2500');
    expect(beyond.body).toMatchObject({ utterances: [], next_after_seq: null, last_seq: 2500 });
    expect((await page(botId, '?after_seq=9000')).body).toMatchObject({
      utterances: [],
      next_after_seq: null,
    });
  });

  it('a page loads fast enough whether the bot saved a segment per line or a few hundred segments', async () => {
    const timings: Record<string, { load_ms: number; page_ms: number }> = {};
    for (const [shape, maxPerSegment] of [
      ['313 segments', 15],
      ['2,500 segments', 1],
    ] as const) {
      const botId = await startBot();
      await saveAll(botId, inSegments(lines, maxPerSegment));
      const load: number[] = [];
      const http: number[] = [];
      for (let i = 0; i < 7; i++) {
        let t = performance.now();
        expect(await stack.deps.transcripts.load(botId)).toHaveLength(threeHours.lines);
        load.push(performance.now() - t);
        t = performance.now();
        const res = await page(botId, '?after_seq=2400&limit=100');
        http.push(performance.now() - t);
        expect(res.body.utterances).toEqual(lines.slice(2400).map((_, j) => asItem(lines, 2401 + j)));
      }
      timings[shape] = { load_ms: Math.round(median(load)), page_ms: Math.round(median(http)) };
    }
    // Medians on the in-memory dynalite; DynamoDB answers a ~0.5 MB query in tens of ms. Bounds far above what was
    // measured (see docs/api.md), to catch a regression to something quadratic, not to time the machine.
    for (const t of Object.values(timings)) expect(t.page_ms).toBeLessThan(1_500);
    if (process.env.TRANSCRIPT_TIMINGS) console.info('transcript page timings (median of 7)', timings);
  });
});

describe('a running bot', () => {
  it('shows each line once it is saved, numbered on from the last, status running until the session ends', async () => {
    const botId = await startBot();
    const empty = await page(botId);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      bot_id: botId,
      status: 'running',
      utterances: [],
      next_after_seq: null,
      last_seq: 0,
    });

    const lines = threeHourTranscript(7);
    await stack.deps.transcripts.saveSegment(botId, 1, lines.slice(0, 2));
    const first = await page(botId);
    expect(first.body).toMatchObject({ status: 'running', next_after_seq: null, last_seq: 2 });
    expect(first.body.utterances).toEqual([asItem(lines, 1), asItem(lines, 2)]);

    // The client polls on from the last seq it has: only what was saved since.
    await stack.deps.transcripts.saveSegment(botId, 2, lines.slice(2, 3));
    expect((await page(botId, '?after_seq=2')).body.utterances).toEqual([asItem(lines, 3)]);
    expect((await page(botId, '?after_seq=3')).body).toMatchObject({ utterances: [], next_after_seq: null });

    // A replacement's segments join the same numbering: its lines come after the lost bot's. The session
    // records the replacement before its task starts, so readers know to look for its segments. Only a bot that was
    // in the room is replaced.
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    expect(
      await stack.deps.sessions.addReplacement(botId, 0, { at: new Date().toISOString(), reason: 'test' }),
    ).toBe(true);
    await stack.deps.transcripts.saveSegment(botId, 1, lines.slice(3, 6), 1);
    const small = await page(botId, '?after_seq=3&limit=2');
    expect(small.body).toMatchObject({ status: 'running', next_after_seq: 5, last_seq: 6 });
    expect(small.body.utterances).toEqual([asItem(lines, 4), asItem(lines, 5)]);
    expect((await page(botId, '?after_seq=5&limit=2')).body.utterances).toEqual([asItem(lines, 6)]);

    await stack.deps.transcripts.saveSegment(botId, 2, lines.slice(6), 1);
    await stack.deps.sessions.updateRunning(botId, {
      status: 'completed',
      completedAt: new Date().toISOString(),
      exitReason: 'force_leave',
    });
    const last = await page(botId, '?after_seq=6');
    expect(last.body).toMatchObject({ status: 'completed', next_after_seq: null, last_seq: 7 });
    expect(last.body.utterances).toEqual([asItem(lines, 7)]);
  });
});

describe('a bot in a local room, transcribing (a real bot process)', () => {
  it('its lines appear while it runs, and the pages say what the final transcript says', async () => {
    const live = await startTestStack({ IDLE_TIMEOUT_MS: '2500', TRANSCRIPT_FLUSH_MS: '200' });
    try {
      const { apiKey } = await live.account(10);
      const created = await fetch(`${live.baseUrl}/rooms`, { method: 'POST', body: '{"name":"paging"}' });
      const { room_url } = (await created.json()) as { room_url: string };
      const join = await live.request('POST', '/api/bot/join', {
        key: apiKey,
        body: { provider: 'local', room_url, bot_config: { name: 'Scribe' } },
      });
      const botId: string = join.body.bot_id;
      await until(() => live.rooms.rooms.get('paging')?.participants.find((p) => p.kind === 'bot'));
      await fetch(`${live.baseUrl}/rooms/paging/participants`, {
        method: 'POST',
        body: JSON.stringify({
          name: 'Ada',
          lines: [
            { say: 'First point: ship on Friday.', at_ms: 100 },
            { say: 'Second point: the release notes.', at_ms: 1200 },
          ],
          leave_at_ms: 3000,
        }),
      });
      const get = (after = 0) =>
        live.request('GET', `/api/bot/${botId}/transcript?after_seq=${after}`, { key: apiKey });

      // biome-ignore lint/suspicious/noExplicitAny: response JSON
      const says = (body: any, text: string) =>
        body.utterances.some((u: { text: string }) => u.text === text);
      const whileRunning = await until(async () => {
        const res = await get();
        return says(res.body, 'First point: ship on Friday.') && res.body;
      });
      expect(whileRunning.status).toBe('running');

      const ended = await until(async () => {
        const res = await live.request('GET', `/api/bot/${botId}/status`, { key: apiKey });
        return res.body.status !== 'running' && res.body;
      });
      expect(ended.status).toBe('completed');
      const final = await get();
      expect(final.body).toMatchObject({ status: 'completed', next_after_seq: null });
      expect(final.body.utterances.map((u: { seq: number }) => u.seq)).toEqual(
        final.body.utterances.map((_: unknown, i: number) => i + 1),
      );
      expect(says(final.body, 'Second point: the release notes.')).toBe(true);
      expect(final.body.utterances.map((u: Utterance) => `${u.speaker}: ${u.text}`).join('\n')).toBe(
        ended.transcript,
      );
      // The lines seen while running kept their numbers.
      for (const u of whileRunning.utterances) expect(final.body.utterances[u.seq - 1]).toEqual(u);
    } finally {
      await live.close();
    }
  });
});

describe('refusals', () => {
  let botId: string;
  beforeAll(async () => {
    botId = await startBot();
    await stack.deps.transcripts.saveSegment(botId, 1, threeHourTranscript(3));
  });

  it.each([
    ['after_seq=-1', /after_seq/],
    ['after_seq=1.5', /after_seq/],
    ['after_seq=abc', /after_seq/],
    ['after_seq=', /after_seq/],
    ['after_seq=1e3', /after_seq/],
    ['after_seq=0x10', /after_seq/],
    ['after_seq=99999999999999999', /after_seq/],
    ['limit=0', /limit/],
    ['limit=1001', /limit/],
    ['limit=2.5', /limit/],
    ['limit=-5', /limit/],
    ['limit=ten', /limit/],
    ['after=2', /after: unknown field/],
    ['cursor=abc', /cursor: unknown field/],
  ])('?%s is 400 validation_error naming it', async (query, detail) => {
    const res = await page(botId, `?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error', detail: expect.stringMatching(detail) });
    expect(typeof res.body.message).toBe('string');
  });

  it('the bounds themselves are accepted', async () => {
    for (const query of [
      '?limit=1',
      '?limit=1000',
      '?after_seq=0',
      '?after_seq=3',
      `?after_seq=${2 ** 53 - 1}`,
    ]) {
      expect((await page(botId, query)).status, query).toBe(200);
    }
  });

  it('a bot id that is not a UUID is 400', async () => {
    const res = await page('not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error', detail: expect.stringMatching(/bot_id/) });
  });

  it('another account’s bot is 404 not_found, exactly like a bot that does not exist', async () => {
    const other = await stack.account(5, 'Other');
    const mine = await page(botId);
    expect(mine.status).toBe(200);
    expect(mine.body.utterances).toHaveLength(3);

    const theirs = await page(botId, '', other.apiKey);
    const missingId = randomUUID();
    const missing = await page(missingId, '', other.apiKey);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({
      error: 'not_found',
      detail: missing.body.detail.replace(missingId, botId),
      message: missing.body.message,
    });
    expect(theirs.body.detail).toContain(botId);
    expect(JSON.stringify(theirs.body)).not.toContain(threeHourTranscript(1)[0]!.text);
  });

  it('no API key is 401', async () => {
    const res = await stack.request('GET', `/api/bot/${botId}/transcript`);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('authentication_error');
  });
});

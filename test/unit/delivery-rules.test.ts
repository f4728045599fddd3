import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../core/accounts/secrets';
import {
  baseDelaysSeconds,
  maxAttempts,
  nextRetry,
  parseRetryAfter,
} from '../../core/delivery/retry-schedule';
import { webhookHeaders } from '../../core/delivery/webhook-signer';
import { renderResultsEmail } from '../../core/mail/results-email';

describe('retry schedule', () => {
  it('makes at least 12 attempts over at least 72 hours, each wait within the 12-hour SQS limit', () => {
    expect(maxAttempts).toBeGreaterThanOrEqual(12);
    let shortest = 0;
    for (let n = 1; n < maxAttempts; n++) {
      const d = nextRetry(n, { random: () => 0 });
      expect(d.retry).toBe(true);
      expect(d.delaySeconds).toBeLessThanOrEqual(43_200);
      shortest += d.delaySeconds;
    }
    expect(shortest).toBeGreaterThanOrEqual(72 * 3600);
    expect(nextRetry(maxAttempts).retry).toBe(false);
  });

  it('grows exponentially, jitters upward only, honours Retry-After and compresses with scale', () => {
    expect(baseDelaysSeconds.slice(0, 5)).toEqual([30, 120, 300, 900, 1800]);
    expect(nextRetry(1, { random: () => 1 }).delaySeconds).toBe(36);
    expect(nextRetry(1, { random: () => 0, retryAfterSeconds: 600 }).delaySeconds).toBe(600);
    expect(nextRetry(1, { random: () => 0, retryAfterSeconds: 999_999 }).delaySeconds).toBe(43_200);
    expect(nextRetry(5, { random: () => 0, scale: 0.001 }).delaySeconds).toBe(2);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('webhook signatures', () => {
  it('verify with the standardwebhooks library, with either secret during a rotation', () => {
    const current = newWebhookSecret();
    const previous = newWebhookSecret();
    const body = JSON.stringify({ event: 'session_complete', bot_id: 'x' });
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([current, previous], 'msg_1', ts, body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('results e-mail', () => {
  it('escapes meeting text in HTML and keeps the subject on one line', () => {
    const mail = renderResultsEmail({
      roomName: 'standup\r\nBcc: evil@example.com',
      startedAt: '2026-11-22T10:00:00Z',
      completedAt: '2026-11-22T10:30:00Z',
      exitReason: 'participant_left',
      durationSeconds: 1800,
      transcript: 'Eve: <script>alert(1)</script> & <img src=x onerror=alert(2)>',
      qaPairs: [{ question: 'Is <b>this</b> bold?', answer: 'No "quotes" break it' }],
      insights: {
        summary: 'A <i>short</i> meeting.',
        overall_score: 70,
        strengths: ['Clear <goals>'],
        weaknesses: [],
      },
    });
    expect(mail.subject).toBe('Meeting results: standup Bcc: evil@example.com (2026-11-22)');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img');
    expect(mail.html).toContain('Is &lt;b&gt;this&lt;/b&gt; bold?');
    expect(mail.text).toContain('Eve: <script>alert(1)</script>');
    expect(mail.text).toContain('EVALUATION: 70/100');
    expect(mail.text).toContain('30 min');
    expect(mail.text).not.toContain('WARNINGS');
    expect(mail.html).not.toContain('Warnings');
  });

  it('lists the session warnings before the summary, escaped', () => {
    const mail = renderResultsEmail({
      roomName: 'standup',
      startedAt: '2026-11-22T10:00:00Z',
      completedAt: '2026-11-22T10:30:00Z',
      exitReason: 'participant_left',
      durationSeconds: 1800,
      transcript: 'Ann: hello',
      qaPairs: [],
      insights: null,
      warnings: [{ code: 'speech_fallback', message: 'The voice failed (<Polly> refused); text only.' }],
    });
    expect(mail.text).toContain('WARNINGS\n  ! The voice failed (<Polly> refused); text only.\n\nSUMMARY');
    expect(mail.html).toContain(
      '<h2 style="font-size:16px">Warnings</h2><ul><li>The voice failed (&lt;Polly&gt; refused); text only.</li></ul>',
    );
    expect(mail.html.indexOf('Warnings')).toBeLessThan(mail.html.indexOf('Summary'));
  });
});

// The EMF documents our code writes (names, units, dimensions), read back from stdout as CloudWatch would read them
// from the log group, and the catalogue's mapping from domain events to metrics (core/metrics.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics, useEmfMetrics } from '../../core/adapters/metrics/emf-metrics';
import { MemoryMetrics } from '../../core/adapters/metrics/memory-metrics';
import {
  flushMetrics,
  joinOutcomeOf,
  metricNames,
  metrics,
  metricsService,
  useMetricsSink,
} from '../../core/metrics';

interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

/** The EMF lines written to stdout while `run` runs, parsed. */
function emfWrittenBy(run: () => void): EmfDocument[] {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return lines
    .join('')
    .split('\n')
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as EmfDocument);
}

/** One metric of a document, flattened: what a CloudWatch query would see. */
function flatten(doc: EmfDocument) {
  const [directive] = doc._aws.CloudWatchMetrics;
  return directive!.Metrics.map((m) => ({
    namespace: directive!.Namespace,
    name: m.Name,
    unit: m.Unit,
    value: doc[m.Name],
    dimensions: Object.fromEntries(directive!.Dimensions.flat().map((d) => [d, doc[d]])),
  }));
}

afterEach(() => useMetricsSink(undefined));

describe('EMF metrics (Powertools)', () => {
  const namespace = 'MeetingBot/test';

  it('writes every catalogue metric with its unit and dimensions, in the configured namespace', () => {
    const docs = emfWrittenBy(() => {
      useMetricsSink(new EmfMetrics({ namespace, buffered: true }));
      metrics.join('started');
      metrics.join('payment_required');
      metrics.runningBots(3);
      metrics.joinFailed('meeting-full');
      metrics.botInRoom('2026-01-01T00:00:00.000Z', new Date('2026-01-01T00:00:07.500Z'));
      metrics.sessionEnded('stop_phrase', 12.5);
      metrics.botTaskFailed();
      metrics.replaced();
      metrics.transcriptionUnavailable();
      metrics.deliveryAttempt('webhook', 'retry', '2026-01-01T00:00:00.000Z');
      metrics.deliveryAttempt(
        'webhook',
        'delivered',
        '2026-01-01T00:00:00.000Z',
        new Date('2026-01-01T00:01:30.000Z'),
      );
      metrics.deliveryAttempt('email', 'delivered', '2026-01-01T00:00:00.000Z');
      metrics.deliveryAttempt('email', 'failed', '2026-01-01T00:00:00.000Z');
      metrics.dlqParked('webhook');
      metrics.insights(1234, false);
      metrics.pooledBotIdle();
      metrics.poolGrown(7);
      metrics.poolGrowthFailed();
      metrics.sessionWarning('speech_fallback');
      metrics.conversationModelFailed('model_throttled');
      metrics.speechFailed('text_only');
      metrics.emailRefused('permanent');
      metrics.runTaskRefused('throttled');
      metrics.launchFailed('join');
      metrics.dependencyUnavailable('throttled');
      flushMetrics();
    });
    const points = docs.flatMap(flatten);
    const service = { service: metricsService };
    expect(points.every((p) => p.namespace === namespace)).toBe(true);
    expect(points.map(({ namespace: _, ...p }) => p)).toEqual(
      expect.arrayContaining([
        { name: 'JoinRequests', unit: 'Count', value: 1, dimensions: { ...service, outcome: 'started' } },
        {
          name: 'JoinRequests',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, outcome: 'payment_required' },
        },
        {
          name: 'JoinFailures',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, error_type: 'meeting-full' },
        },
        { name: 'RunningBots', unit: 'Count', value: 3, dimensions: service },
        { name: 'PoolGrowth', unit: 'Count', value: 7, dimensions: service },
        { name: 'PoolGrowthFailures', unit: 'Count', value: 1, dimensions: service },
        { name: 'JoinLatency', unit: 'Milliseconds', value: 7500, dimensions: service },
        {
          name: 'SessionsEnded',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, exit_reason: 'stop_phrase' },
        },
        { name: 'BotMinutes', unit: 'Count', value: 12.5, dimensions: service },
        { name: 'BotTaskFailures', unit: 'Count', value: 1, dimensions: service },
        { name: 'BotReplacements', unit: 'Count', value: 1, dimensions: service },
        { name: 'TranscriptionUnavailable', unit: 'Count', value: 1, dimensions: service },
        { name: 'WebhookAttempts', unit: 'Count', value: 1, dimensions: { ...service, outcome: 'retry' } },
        {
          name: 'WebhookAttempts',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, outcome: 'delivered' },
        },
        { name: 'WebhookDeliveryAge', unit: 'Seconds', value: 90, dimensions: service },
        { name: 'Emails', unit: 'Count', value: 1, dimensions: { ...service, outcome: 'sent' } },
        { name: 'Emails', unit: 'Count', value: 1, dimensions: { ...service, outcome: 'failed' } },
        { name: 'DeliveryDlqParks', unit: 'Count', value: 1, dimensions: { ...service, channel: 'webhook' } },
        { name: 'InsightsLatency', unit: 'Milliseconds', value: 1234, dimensions: service },
        { name: 'InsightsFailures', unit: 'Count', value: 1, dimensions: service },
        { name: 'PoolIdleBots', unit: 'Count', value: 1, dimensions: service },
        {
          name: 'SessionWarnings',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, code: 'speech_fallback' },
        },
        {
          name: 'ConversationModelFailures',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, error: 'model_throttled' },
        },
        { name: 'SpeechFailures', unit: 'Count', value: 1, dimensions: { ...service, outcome: 'text_only' } },
        { name: 'EmailRefusals', unit: 'Count', value: 1, dimensions: { ...service, kind: 'permanent' } },
        {
          name: 'RunTaskRefusals',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, refusal: 'throttled' },
        },
        { name: 'LaunchFailures', unit: 'Count', value: 1, dimensions: { ...service, stage: 'join' } },
        {
          name: 'DependencyUnavailable',
          unit: 'Count',
          value: 1,
          dimensions: { ...service, kind: 'throttled' },
        },
      ]),
    );
    // Every name written is in the catalogue, and every catalogue name was written.
    expect(new Set(points.map((p) => p.name))).toEqual(new Set(Object.values(metricNames)));
  });

  it('buffered (a Lambda): dimension-less points wait for the flush; dimensioned ones are written at once', () => {
    useMetricsSink(new EmfMetrics({ namespace, buffered: true }));
    expect(emfWrittenBy(() => metrics.replaced())).toEqual([]);
    expect(
      emfWrittenBy(() => metrics.join('started'))
        .flatMap(flatten)
        .map((p) => p.name),
    ).toEqual(['JoinRequests']);
    expect(
      emfWrittenBy(() => flushMetrics())
        .flatMap(flatten)
        .map((p) => p.name),
    ).toEqual(['BotReplacements']);
    // Nothing buffered: the flush writes nothing (and Powertools' "no metrics" warning is not triggered).
    expect(emfWrittenBy(() => flushMetrics())).toEqual([]);
  });

  it('unbuffered (the bot task): every point is a line at once', () => {
    useMetricsSink(new EmfMetrics({ namespace, buffered: false }));
    expect(
      emfWrittenBy(() => metrics.replaced())
        .flatMap(flatten)
        .map((p) => p.name),
    ).toEqual(['BotReplacements']);
  });

  it('no METRICS_NAMESPACE (the local stack): nothing is written', () => {
    const docs = emfWrittenBy(() => {
      useEmfMetrics({ METRICS_NAMESPACE: '' }, false);
      metrics.join('started');
      flushMetrics();
    });
    expect(docs).toEqual([]);
  });
});

describe('the metrics catalogue', () => {
  it('maps a join response status to its outcome; a 503 is capacity_unavailable, another 5xx is none', () => {
    expect([201, 402, 429, 400, 401, 409, 500, 503].map((status) => joinOutcomeOf(status))).toEqual([
      'started',
      'payment_required',
      'rate_limited',
      'rejected',
      'rejected',
      'rejected',
      undefined,
      'capacity_unavailable',
    ]);
    expect(joinOutcomeOf(503, 'dependency_unavailable')).toBe('dependency_unavailable');
    expect(joinOutcomeOf(503, 'capacity_exhausted')).toBe('capacity_unavailable');
  });

  it('counts no bot minutes below zero and no task failures for an empty sweep', () => {
    const sink = new MemoryMetrics();
    useMetricsSink(sink);
    metrics.sessionEnded('max_duration', -1);
    metrics.botTaskFailed(0);
    expect(sink.named(metricNames.botMinutes).map((p) => p.value)).toEqual([0]);
    expect(sink.named(metricNames.botTaskFailures)).toEqual([]);
  });
});

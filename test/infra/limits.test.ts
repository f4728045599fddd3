// The local stack enforces what `cdk deploy` deploys: every queue-driven function's timeout and memory, its event
// source's batch size, batching window and maximum concurrency, and each queue's visibility timeout, redrive and
// retention, read here from the synthesized template and from the running local stack's own queues (fauxqs, asked
// with GetQueueAttributes), so neither side can drift from infra/limits.ts without this failing.
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { controlMessageOverheadMs } from '../../functions/control/handler';
import { functionLimits, queueLimits } from '../../infra/limits';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { refTarget, resourcesOfType, type Synthesized, synthStack } from './synth-stack';

let s: Synthesized;
let local: LocalStack;

beforeAll(async () => {
  s = synthStack({}, { bundle: false });
  local = await startLocalStack({ port: 0, dataDir: null, env: { LOG_LEVEL: 'silent', BOT_POOL_SIZE: '0' } });
});

afterAll(async () => {
  await local?.close();
});

const logicalId = (c: IConstruct) => s.stack.getLogicalId(c.node.defaultChild as never);
const props = (id: string) => s.json.Resources[id]!.Properties!;

/** The deployed side of one queue-driven function: the function, its queue and DLQ, and their event source. */
function deployed(queue: IConstruct, fn: IConstruct) {
  const queueId = logicalId(queue);
  const fnId = logicalId(fn);
  const [, mapping] = resourcesOfType(s.json, 'AWS::Lambda::EventSourceMapping').find(
    ([, m]) =>
      refTarget(m.Properties!.EventSourceArn) === queueId && refTarget(m.Properties!.FunctionName) === fnId,
  )!;
  const q = props(queueId);
  const f = props(fnId);
  return {
    function: { timeoutSeconds: f.Timeout, memoryMiB: f.MemorySize },
    source: {
      batchSize: mapping.Properties!.BatchSize,
      maxBatchingWindowSeconds: mapping.Properties!.MaximumBatchingWindowInSeconds ?? 0,
      maxConcurrency: mapping.Properties!.ScalingConfig?.MaximumConcurrency,
      reportsFailures: mapping.Properties!.FunctionResponseTypes,
    },
    queue: {
      visibilityTimeoutSeconds: q.VisibilityTimeout,
      maxReceiveCount: q.RedrivePolicy?.maxReceiveCount,
      retentionSeconds: q.MessageRetentionPeriod,
      maxMessageBytes: q.MaximumMessageSize,
    },
  };
}

/** The local side: the poller's settings and the queue's attributes as fauxqs holds them. */
async function enforcedLocally(consumer: keyof LocalStack['eventSources'], queueUrl: string) {
  const sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: local.queues.endpoint });
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
  );
  sqs.destroy();
  const poller = local.eventSources[consumer];
  const redrive = Attributes.RedrivePolicy ? JSON.parse(Attributes.RedrivePolicy) : undefined;
  return {
    timeoutSeconds: poller.timeoutMs! / 1000,
    batchSize: poller.batchSize,
    concurrency: poller.concurrency,
    queue: {
      visibilityTimeoutSeconds: Number(Attributes.VisibilityTimeout),
      maxReceiveCount: redrive ? Number(redrive.maxReceiveCount) : undefined,
      retentionSeconds: Number(Attributes.MessageRetentionPeriod),
      maxMessageBytes: Number(Attributes.MaximumMessageSize),
    },
  };
}

describe('the local stack enforces the deployed limits', () => {
  it('each queue-driven function: timeout, batch, concurrency, visibility, redrive and retention as deployed', async () => {
    const { controlPlane: c, delivery: d } = s.stack;
    const cases = [
      ['control', c.controlQueue, c.function, local.queues.control.url],
      ['botEvents', c.botEventsQueue, c.function, local.queues.botEvents.url],
      ['results', d.resultsQueue, d.resultsFunction, local.queues.results.url],
      ['delivery', d.deliveryQueue, d.deliveryFunction!, local.queues.delivery.url],
    ] as const;
    for (const [name, queue, fn, url] of cases) {
      const dep = deployed(queue, fn.function);
      const loc = await enforcedLocally(name, url);
      expect(loc.timeoutSeconds, name).toBe(dep.function.timeoutSeconds);
      expect(loc.batchSize, name).toBe(dep.source.batchSize);
      expect(dep.source.maxBatchingWindowSeconds, `${name}: the local poller has no batching window`).toBe(0);
      expect(dep.source.reportsFailures, name).toEqual(['ReportBatchItemFailures']);
      // Where the deployed source caps its concurrency, the local poller runs exactly that many handlers.
      if (dep.source.maxConcurrency !== undefined)
        expect(loc.concurrency, name).toBe(dep.source.maxConcurrency);
      expect(loc.queue, name).toEqual(dep.queue);
      // And the declaration both read is the one these came from.
      expect(dep.queue, name).toEqual(queueLimits[name]);
    }
  });

  it("the warm pool's queue: visibility and retention as deployed, no DLQ", async () => {
    const q = props(logicalId(s.stack.pool!.queue));
    const sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: local.queues.endpoint });
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: local.queues.pool.url, AttributeNames: ['All'] }),
    );
    sqs.destroy();
    expect(Number(Attributes.VisibilityTimeout)).toBe(q.VisibilityTimeout);
    expect(Number(Attributes.MessageRetentionPeriod)).toBe(q.MessageRetentionPeriod);
    expect(Number(Attributes.MaximumMessageSize)).toBe(q.MaximumMessageSize);
    expect(q.RedrivePolicy).toBeUndefined();
    expect(Attributes.RedrivePolicy).toBeUndefined();
  });

  it('every function of the template has its declared timeout and memory', () => {
    const declared = new Set(
      Object.values(functionLimits).map((l) => `${l.timeoutSeconds}s/${l.memoryMiB}MiB`),
    );
    for (const [id, fn] of resourcesOfType(s.json, 'AWS::Lambda::Function')) {
      // CDK's own helper functions (log retention, custom resources) are not ours to size.
      if (!fn.Properties!.Environment?.Variables?.POWERTOOLS_SERVICE_NAME) continue;
      expect(declared.has(`${fn.Properties!.Timeout}s/${fn.Properties!.MemorySize}MiB`), id).toBe(true);
    }
  });

  it("every route function answers within API Gateway's 30 s integration limit", () => {
    const routes = [...s.stack.api.functions.values(), s.stack.api.notFoundFunction];
    expect(routes.length).toBeGreaterThan(5);
    for (const fn of routes) expect(props(logicalId(fn.function)).Timeout).toBeLessThan(30);
  });

  it("the control function's timeout holds one message's longest RunTask budget, so it never times out mid-start", () => {
    // RUN_TASK_RETRY_BUDGET_MS may be set up to 25 s (core/config.ts); a message is begun only with this much left,
    // and an invocation must be able to begin its first ones even after a slow start (10 s of slack).
    const longestReserveMs = 25_000 + controlMessageOverheadMs;
    expect(functionLimits.control.timeoutSeconds * 1000).toBeGreaterThanOrEqual(longestReserveMs + 10_000);
    expect(props(logicalId(s.stack.controlPlane.function.function)).Timeout).toBe(
      functionLimits.control.timeoutSeconds,
    );
  });
});

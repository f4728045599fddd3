// X-Ray as Lambda runs it: a function bundle in a process with Lambda's environment (execution env, trace
// header, daemon address) sends its segments to a UDP "daemon" here: the invocation's `## <function>` subsegment with
// the bot id, cold start and service annotations, and the DynamoDB call beneath it; its log lines carry the trace id
// and the Lambda request id. No AWS account: the DynamoDB endpoint refuses, which the trace records as a fault.

import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dependencyUnavailableLog } from '../../functions/http/http-route';
import { nodeBundle } from '../../scripts/bundles';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const runtime = fileURLToPath(new URL('./support/lambda-runtime.mjs', import.meta.url));
const botId = '5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b';
const traceId = '1-5759e988-bd862e3fe1be46a994272793';
const dir = mkdtempSync(join(tmpdir(), 'traced-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Segment {
  name: string;
  type?: string;
  trace_id?: string;
  annotations?: Record<string, unknown>;
  aws?: { operation?: string; table_name?: string };
}

describe('tracing in Lambda', () => {
  it('sends the invocation subsegment, annotated with the bot id, and its DynamoDB call to the X-Ray daemon', async () => {
    const bundle = join(dir, 'index.mjs');
    await build({
      ...nodeBundle,
      entryPoints: [join(repoRoot, 'functions/http/status.ts')],
      outfile: bundle,
    });
    const daemon = createSocket('udp4');
    const segments: Segment[] = [];
    daemon.on('message', (m) => {
      // Each datagram is a header line, then one segment document.
      const doc = m.toString().split('\n')[1];
      if (doc) segments.push(JSON.parse(doc) as Segment);
    });
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const output: string[] = [];
    const child = fork(runtime, [bundle], {
      env: {
        PATH: process.env.PATH,
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
        AWS_LAMBDA_FUNCTION_NAME: 'status',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        LAMBDA_TASK_ROOT: dir,
        _X_AMZN_TRACE_ID: `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`,
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        // The local-stack wiring (core/config.ts): a table endpoint nothing answers, so the request fails fast.
        LOCAL_STACK: JSON.stringify({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' }),
        POWERTOOLS_SERVICE_NAME: 'meeting-bot',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const s of [child.stdout, child.stderr]) s?.on('data', (d: Buffer) => output.push(d.toString()));
    try {
      await new Promise((resolve) => child.once('message', resolve));
      const result = await new Promise<{ ok: boolean; result?: { statusCode: number; body?: string } }>(
        (resolve) => {
          child.once('message', resolve as never);
          child.send({
            id: 1,
            event: {
              headers: { authorization: `Bearer mbk_${'a'.repeat(43)}` },
              pathParameters: { bot_id: botId },
              requestContext: { requestId: 'req-1' },
            },
          });
        },
      );
      // DynamoDB is unreachable: the key cannot be checked; a dependency that does not answer is the caller's to
      // retry (503 dependency_unavailable with Retry-After), in our error body.
      expect(result.result?.statusCode).toBe(503);
      expect(JSON.parse(String(result.result?.body)).error).toBe('dependency_unavailable');
      // The daemon gets the segments after the invocation has answered.
      const invocation = await vi.waitFor(
        () => {
          const found = segments.find((s) => s.name === '## status');
          if (!found) throw new Error(`no "## status" segment yet: ${JSON.stringify(segments)}`);
          return found;
        },
        { timeout: 5000, interval: 50 },
      );
      expect(invocation, JSON.stringify(segments)).toMatchObject({
        type: 'subsegment',
        trace_id: traceId,
        annotations: { bot_id: botId, ColdStart: true, Service: 'meeting-bot' },
      });
      expect(segments).toContainEqual(
        expect.objectContaining({ name: 'DynamoDB', aws: expect.objectContaining({ operation: 'GetItem' }) }),
      );
      const line = output
        .join('')
        .split('\n')
        .find((l) => l.includes(`"${dependencyUnavailableLog}"`));
      expect(JSON.parse(line!)).toMatchObject({
        xray_trace_id: traceId,
        function_request_id: 'req-1',
        cold_start: true,
        request_id: 'req-1',
      });
    } finally {
      child.kill('SIGKILL');
      daemon.close();
    }
  });
});

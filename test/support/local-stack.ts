// Test helper: a local stack with an in-memory database on a free port, plus a small HTTP client.

import type { TaskStoppedDeps } from '../../core/bots/task-stopped';
import type { ControlPlaneMessage } from '../../core/control/messages';
import type { Outbox, OutboxMessage } from '../../core/control/outbox';
import { type ControlDeps, processControl } from '../../core/control/process-control';
import { createLogger } from '../../core/log';
import type { InsightsEngine } from '../../core/ports/insights-engine';
import { processResults, type ResultsDeps } from '../../core/results/process-results';
import { type LocalStack, startLocalStack } from '../../local/stack';

export interface TestStack extends LocalStack {
  /** Creates an account with `credits`, returning its id, API key and webhook signing secret. */
  account(
    credits?: number,
    name?: string,
  ): Promise<{ accountId: string; apiKey: string; keyId: string; webhookSecret: string }>;
  /**
   * The results stage's dependencies on this stack, with the insights engine a test chooses; delivery jobs are
   * recorded in `queued` (when given) instead of being queued. What it sends the control plane (session_completed)
   * is handled at once, in process, with controlDeps(queued): a test awaits the whole way to the delivery jobs.
   */
  resultsDeps(insights: InsightsEngine, queued?: unknown[]): ResultsDeps;
  /** The control plane's dependencies on this stack; delivery jobs recorded in `queued` as for resultsDeps. */
  controlDeps(queued?: unknown[]): ControlDeps;
  /** The task-stopped handling's (and the sweeper's) dependencies on this stack; what they send is pushed to `sent`. */
  taskStoppedDeps(sent: OutboxMessage[]): TaskStoppedDeps;
  request(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<TestResponse>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields
  body: any;
}

/**
 * Settings for a test that follows a meeting to its webhooks: a failed delivery is retried at once (the backoff scaled
 * to nothing), the transcript is saved every 200 ms, and no rate limit stops a test polling the status closely.
 */
export const meetingTestEnv = {
  DELIVERY_BACKOFF_SCALE: '0.00001',
  TRANSCRIPT_FLUSH_MS: '200',
  RATE_LIMIT_PER_MINUTE: '100000',
};

export async function startTestStack(env: Record<string, string> = {}): Promise<TestStack> {
  const stack = await startLocalStack({
    port: 0,
    dataDir: null,
    // Revocation is immediate in tests unless a test sets a key cache; the status cache keeps its default. Bots start
    // cold unless a test asks for the warm pool (warm-pool.test.ts), so each test's processes are its own.
    env: { LOG_LEVEL: 'silent', STOP_POLL_MS: '100', KEY_CACHE_TTL_MS: '0', BOT_POOL_SIZE: '0', ...env },
  });
  const testStack: TestStack = {
    ...stack,
    async account(credits = 10, name = 'Test account') {
      const { account, apiKey, keyId } = await stack.deps.accounts.create(name);
      if (credits !== 0) await stack.deps.ledger.grant(account.accountId, credits, 'test');
      return { accountId: account.accountId, apiKey, keyId, webhookSecret: account.webhookSecret };
    },
    resultsDeps(insights, queued) {
      const control = testStack.controlDeps(queued);
      const outbox: Outbox = {
        send: async (m) => {
          if (m.kind === 'session_ended') return stack.outbox.send(m);
          // A recorded session's second step, at once, as if the results queue had handed it over.
          if (m.kind === 'assemble_recording') return processResults(deps, m);
          await processControl(control, m as ControlPlaneMessage);
        },
      };
      const deps: ResultsDeps = {
        stores: stack.deps,
        config: stack.config,
        outbox,
        insights,
        recordings: stack.deps.recordings(),
        deliveryQueue: control.deliveryQueue,
        log: createLogger('silent'),
        now: () => new Date(),
      };
      return deps;
    },
    controlDeps(queued) {
      return {
        stores: stack.deps,
        config: stack.config,
        runner: stack.runner,
        outbox: stack.outbox,
        deliveryQueue: { send: async (m) => void queued?.push(m) },
        log: createLogger('silent'),
        now: () => new Date(),
      };
    },
    taskStoppedDeps(sent) {
      return {
        stores: stack.deps,
        config: stack.config,
        outbox: { send: async (m) => void sent.push(m as OutboxMessage) },
        log: createLogger('silent'),
      };
    },
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(stack.baseUrl + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, headers: res.headers, body: parsed };
    },
  };
  return testStack;
}

// Open-loop load generator: requests leave on a fixed arrival schedule whatever the server's pace, and each one's
// latency runs from its scheduled send time, so a stalled server is charged for the requests it held back.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface OpenLoopRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OpenLoopOptions {
  url: string;
  /** Sent in turn, request n being requests[n % length]. */
  requests: OpenLoopRequest[];
  ratePerS: number;
  warmupS: number;
  durationS: number;
  /** Cap on open keep-alive connections; past it requests wait in the agent's queue (their wait counts). */
  maxSockets: number;
  timeoutMs: number;
}

export interface OpenLoopResult {
  /** Requests scheduled in the measured window (after the warm-up). */
  scheduled: number;
  /** Per measured request that got a response: completion − scheduled send time (ms). */
  latenciesMs: number[];
  /** Per measured request that got a response: completion − actual send (ms), what a closed-loop tool reports. */
  serviceMs: number[];
  /** Per measured request: actual send − scheduled send (ms), the generator's own lag. */
  sendLagMs: number[];
  statusCodes: Record<string, number>;
  /** The `error` code of each non-2xx response's JSON body (e.g. rate_limited), counted. */
  errorCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Measured window: first scheduled send → last completion (ms). */
  windowMs: number;
  maxInFlight: number;
  socketsOpened: number;
}

/** Messages the worker posts: the measured window starts, then the result. */
type WorkerMessage = { type: 'window-start' } | { type: 'done'; result: OpenLoopResult };

/**
 * Runs the schedule in a worker thread, so the generator does not share the API server's event loop (the stack runs
 * in this process); `onWindowStart` fires when the first measured request is due (CPU snapshots are taken then).
 */
export function runOpenLoop(options: OpenLoopOptions, onWindowStart?: () => void): Promise<OpenLoopResult> {
  return new Promise((resolve, reject) => {
    // Node 20 does not carry tsx's loader into workers: the worker registers it, then imports this file.
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const entry = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const worker = new Worker(entry, { eval: true, workerData: options });
    let result: OpenLoopResult | undefined;
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'window-start') onWindowStart?.();
      else result = m.result;
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`open-loop worker exited with ${code} and no result`)),
    );
  });
}

async function drive(o: OpenLoopOptions, post: (m: WorkerMessage) => void): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.maxSockets });
  let socketsOpened = 0;
  const target = new URL(o.url);
  const intervalMs = 1000 / o.ratePerS;
  const warmupCount = Math.round(o.ratePerS * o.warmupS);
  const total = warmupCount + Math.round(o.ratePerS * o.durationS);
  const r: OpenLoopResult = {
    scheduled: total - warmupCount,
    latenciesMs: [],
    serviceMs: [],
    sendLagMs: [],
    statusCodes: {},
    errorCodes: {},
    errors: 0,
    timeouts: 0,
    windowMs: 0,
    maxInFlight: 0,
    socketsOpened: 0,
  };
  let inFlight = 0;
  let outstanding = total;
  let lastDone = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((res) => {
    allDone = res;
  });
  const start = performance.now() + 20;
  const windowStart = start + warmupCount * intervalMs;

  const send = (n: number, dueAt: number) => {
    const spec = o.requests[n % o.requests.length]!;
    const measured = n >= warmupCount;
    const sentAt = performance.now();
    if (measured) r.sendLagMs.push(sentAt - dueAt);
    inFlight++;
    r.maxInFlight = Math.max(r.maxInFlight, inFlight);
    let settled = false;
    const settle = (outcome: { status?: number; body?: string; error?: 'error' | 'timeout' }) => {
      // A failing request can report through both the response and the request.
      if (settled) return;
      settled = true;
      const now = performance.now();
      inFlight--;
      if (measured) {
        lastDone = Math.max(lastDone, now);
        if (outcome.status !== undefined) {
          r.latenciesMs.push(now - dueAt);
          r.serviceMs.push(now - sentAt);
          r.statusCodes[outcome.status] = (r.statusCodes[outcome.status] ?? 0) + 1;
          if (outcome.status >= 300) {
            const code = errorCode(outcome.body ?? '');
            r.errorCodes[code] = (r.errorCodes[code] ?? 0) + 1;
          }
        } else if (outcome.error === 'timeout') r.timeouts++;
        else r.errors++;
      }
      if (--outstanding === 0) allDone();
    };
    const headers = spec.body
      ? { ...spec.headers, 'content-length': String(Buffer.byteLength(spec.body)) }
      : spec.headers;
    const req = request(
      { agent, host: target.hostname, port: target.port, method: spec.method, path: spec.path, headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => settle({ status: res.statusCode ?? 0, body }));
        res.on('error', () => settle({ error: 'error' }));
      },
    );
    let timedOut = false;
    req.setTimeout(o.timeoutMs, () => {
      timedOut = true;
      req.destroy();
    });
    req.on('socket', (socket) => {
      if (!(socket as { benchCounted?: boolean }).benchCounted) {
        (socket as { benchCounted?: boolean }).benchCounted = true;
        socketsOpened++;
      }
    });
    req.on('error', () => settle({ error: timedOut ? 'timeout' : 'error' }));
    req.end(spec.body);
  };

  // Timers fire late by up to a millisecond or so; every request already due is sent on each wake-up, and its
  // latency still counts from when it was due.
  let next = 0;
  await new Promise<void>((scheduleDone) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        if (next === warmupCount) post({ type: 'window-start' });
        send(next, start + next * intervalMs);
        next++;
      }
      if (next < total) setTimeout(tick, Math.max(0, start + next * intervalMs - performance.now() - 0.5));
      else scheduleDone();
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  await finished;
  agent.destroy();
  r.windowMs = lastDone - windowStart;
  r.socketsOpened = socketsOpened;
  return r;
}

function errorCode(body: string): string {
  try {
    return String((JSON.parse(body) as { error?: unknown }).error ?? 'no error code');
  } catch {
    return 'non-JSON body';
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const post = (m: WorkerMessage) => port.postMessage(m);
  post({ type: 'done', result: await drive(workerData as OpenLoopOptions, post) });
}

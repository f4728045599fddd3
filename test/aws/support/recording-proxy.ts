// A loopback proxy in front of moto_server that records every AWS API call (who, which service and operation, the
// request and the answer) so the IAM simulation can judge each one, and that can make an operation fail on purpose.
// It also works around moto's known gaps, in one place and written down (docs/contributing/deploy-testing.md).
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface AwsCall {
  /** The access key id that signed the call: the logical id of the role the caller runs as. */
  principal: string;
  /** SigV4 signing name: dynamodb, sqs, ecs, ses, … */
  service: string;
  operation: string;
  // biome-ignore lint/suspicious/noExplicitAny: AWS JSON bodies, read by the IAM mapping and the tests.
  input: any;
  // biome-ignore lint/suspicious/noExplicitAny: idem.
  output: any;
  status: number;
}

export interface Fault {
  status: number;
  type: string;
  message: string;
}

export interface RecordingProxy {
  endpoint: string;
  calls: AwsCall[];
  /** Answers every call of `operation` with this error until cleared (`undefined`), or only the next `times` calls. */
  fail(operation: string, fault: Fault | undefined, times?: number): void;
  close(): Promise<void>;
}

/** REST-JSON operations (no X-Amz-Target) by method and path; the rest of our calls are JSON-RPC. */
const restOperations: { service: string; method: string; path: RegExp; operation: string }[] = [
  { service: 'ses', method: 'POST', path: /^\/v2\/email\/outbound-emails$/, operation: 'SendEmail' },
  { service: 'ses', method: 'POST', path: /^\/v2\/email\/identities$/, operation: 'CreateEmailIdentity' },
];

function signer(req: IncomingMessage): { principal: string; service: string } {
  const auth = String(req.headers.authorization ?? '');
  const m = /Credential=([^/]+)\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(auth);
  if (!m) throw new Error(`unsigned request to ${req.method} ${req.url}`);
  return { principal: m[1]!, service: m[2]! };
}

function operationOf(req: IncomingMessage, service: string, body: string): string {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') return target.split('.').pop()!;
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const rest = restOperations.find(
    (r) => r.service === service && r.method === req.method && r.path.test(path),
  );
  if (rest) return rest.operation;
  const action = new URLSearchParams(body).get('Action');
  if (action) return action;
  throw new Error(`no operation mapping for ${service} ${req.method} ${path}`);
}

/**
 * moto's gaps, bridged here rather than in production code: RunTask with a capacity provider strategy and no launch
 * type makes moto look for EC2 container instances (it has no Fargate capacity providers), so the strategy is sent
 * on as launch type FARGATE. The recorded call keeps what our code sent.
 */
// biome-ignore lint/suspicious/noExplicitAny: AWS JSON body.
function forMoto(service: string, operation: string, input: any): any {
  if (service === 'ecs' && operation === 'RunTask' && input?.capacityProviderStrategy && !input.launchType) {
    const { capacityProviderStrategy: _, ...rest } = input;
    return { ...rest, launchType: 'FARGATE' };
  }
  return input;
}

const parse = (text: string) => {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
};

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const calls: AwsCall[] = [];
  const faults = new Map<string, Fault & { remaining?: number }>();
  const server: Server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const { principal, service } = signer(req);
      const operation = operationOf(req, service, body);
      const input = parse(body);
      const fault = faults.get(operation);
      if (fault?.remaining !== undefined && --fault.remaining <= 0) faults.delete(operation);
      if (fault) {
        const answer = { __type: fault.type, message: fault.message };
        calls.push({ principal, service, operation, input, output: answer, status: fault.status });
        res.writeHead(fault.status, {
          'content-type': 'application/x-amz-json-1.1',
          'x-amzn-errortype': fault.type,
        });
        res.end(JSON.stringify(answer));
        return;
      }
      const sent = input === undefined ? body : JSON.stringify(forMoto(service, operation, input));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && k !== 'content-length' && k !== 'host' && k !== 'connection')
          headers[k] = v;
      }
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : sent,
      });
      const text = await answer.text();
      calls.push({ principal, service, operation, input, output: parse(text), status: answer.status });
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (
          k !== 'content-length' &&
          k !== 'transfer-encoding' &&
          k !== 'connection' &&
          k !== 'content-encoding'
        )
          out[k] = v;
      });
      res.writeHead(answer.status, out);
      res.end(text);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ __type: 'ProxyError', message: String(err) }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    fail(operation, fault, times) {
      if (fault) faults.set(operation, { ...fault, ...(times !== undefined && { remaining: times }) });
      else faults.delete(operation);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

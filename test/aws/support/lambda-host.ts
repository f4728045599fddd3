// Runs the deployed bundles as Lambda would: each function in its own process with its template environment, its
// role's credentials (the access key names the role, so the recording knows who called), and the AWS endpoint
// pointed at moto through the recording proxy (the SDK's standard AWS_ENDPOINT_URL: no code path of ours changes).
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { credentialsOf, type DeployedFunction } from './deployed-stack';
import { motoRegion } from './moto';

const runtime = fileURLToPath(new URL('./lambda-runtime.mjs', import.meta.url));

/** The environment AWS gives every process of ours, plus what the test changes (documented where it is set). */
export function awsProcessEnv(
  principal: string,
  endpoint: string,
  environment: Record<string, string>,
): Record<string, string> {
  const { accessKeyId, secretAccessKey } = credentialsOf(principal);
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    AWS_REGION: motoRegion,
    AWS_DEFAULT_REGION: motoRegion,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_ENDPOINT_URL: endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...environment,
  };
}

export class LambdaHost {
  private readonly children = new Map<string, { child: ChildProcess; output: string[] }>();
  private next = 0;

  constructor(
    private readonly endpoint: string,
    /** Settings the test adds to a function's template environment, with the reason beside each use. */
    private readonly extraEnv: (fn: DeployedFunction) => Record<string, string> = () => ({}),
  ) {}

  private async start(fn: DeployedFunction) {
    const output: string[] = [];
    const child = fork(runtime, [fn.bundle], {
      env: {
        ...awsProcessEnv(fn.role, this.endpoint, fn.environment),
        AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
        ...this.extraEnv(fn),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const s of [child.stdout, child.stderr]) s?.on('data', (d: Buffer) => output.push(d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`${fn.logicalId} exited (${code}): ${output.join('')}`)));
    });
    const started = { child, output };
    this.children.set(fn.logicalId, started);
    return started;
  }

  /** Invokes the function with an event and resolves with what its handler returned (a thrown error rejects). */
  async invoke<T = unknown>(fn: DeployedFunction, event: unknown): Promise<T> {
    const { child, output } = this.children.get(fn.logicalId) ?? (await this.start(fn));
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      const onMessage = (m: { id?: number; ok: boolean; result?: T; error?: string }) => {
        if (m.id !== id) return;
        child.off('message', onMessage);
        if (m.ok) resolve(m.result as T);
        else reject(new Error(`${fn.logicalId} failed: ${m.error}\n${output.join('').slice(-3000)}`));
      };
      child.on('message', onMessage);
      child.send({ id, event, timeoutMs: fn.timeoutSeconds * 1000 });
    });
  }

  /** The function's log lines so far (JSON lines from core/log.ts). */
  logs(fn: DeployedFunction): string {
    return this.children.get(fn.logicalId)?.output.join('') ?? '';
  }

  async close() {
    for (const { child } of this.children.values()) child.kill('SIGKILL');
    this.children.clear();
  }
}

// A pooled bot's view of its own ECS task: its ARN (task metadata endpoint v4) and scale-in protection (the agent's
// endpoint). Both are local to the task; off ECS each call is a no-op.
// https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-metadata-endpoint-v4-fargate.html
// https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-scale-in-protection-endpoint.html

/** The longest protection the agent accepts (48 hours). */
export const maxProtectionMinutes = 2880;
/** Beyond the session's longest stay: joining, leaving, saving the transcript, the 120 s stop timeout. */
const protectionMarginMinutes = 15;

const requestTimeoutMs = 5_000;

export interface EcsTaskEnvironment {
  /** Set by ECS in every container of a task (Fargate platform 1.4 and later). */
  ECS_CONTAINER_METADATA_URI_V4?: string;
  /** Set by the ECS agent (1.65.0 and later; on Fargate always). */
  ECS_AGENT_URI?: string;
}

/** This task's ARN from the task metadata endpoint; undefined off ECS. Throws when the endpoint fails. */
export async function ecsTaskArn(env: EcsTaskEnvironment = process.env): Promise<string | undefined> {
  const base = env.ECS_CONTAINER_METADATA_URI_V4;
  if (!base) return undefined;
  const res = await fetch(`${base}/task`, { signal: AbortSignal.timeout(requestTimeoutMs) });
  if (!res.ok) throw new Error(`task metadata endpoint answered ${res.status}`);
  const body = (await res.json()) as { TaskARN?: unknown };
  if (typeof body.TaskARN !== 'string' || !body.TaskARN) throw new Error('task metadata has no TaskARN');
  return body.TaskARN;
}

/** How long a bot whose session may last `longestStaySeconds` from its claim protects its task: ≤ 48 h. */
export function scaleInProtectionMinutes(longestStaySeconds: number): number {
  return Math.min(maxProtectionMinutes, Math.ceil(longestStaySeconds / 60) + protectionMarginMinutes);
}

/** Protects this task from scale-in and deployments for `minutes`; false off ECS, throws when the agent refuses. */
export async function protectFromScaleIn(
  minutes: number,
  env: EcsTaskEnvironment = process.env,
): Promise<boolean> {
  const base = env.ECS_AGENT_URI;
  if (!base) return false;
  const expiresInMinutes = Math.max(1, Math.min(maxProtectionMinutes, Math.ceil(minutes)));
  const res = await fetch(`${base}/task-protection/v1/state`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ProtectionEnabled: true, ExpiresInMinutes: expiresInMinutes }),
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  const text = await res.text();
  // The agent answers {"protection": {...}} when it took, and {"error": {Code, Message}} or {"failure": {Reason,
  // Detail}} when it did not: the ECS call failed, or ECS refused (e.g. TASK_NOT_VALID for a task not in a service).
  let body: { error?: { Code?: string; Message?: string }; failure?: { Reason?: string; Detail?: string } } =
    {};
  try {
    body = JSON.parse(text) ?? {};
  } catch {} // Not JSON: the status decides.
  if (!res.ok || body.error || body.failure) {
    const why = body.error
      ? `${body.error.Code ?? 'error'}: ${body.error.Message ?? ''}`
      : body.failure
        ? `${body.failure.Reason ?? 'failure'}: ${body.failure.Detail ?? ''}`
        : text.slice(0, 200);
    throw new Error(`task scale-in protection refused (${res.status}): ${why}`);
  }
  return true;
}

// The bot task's view of its ECS task (bot-task/ecs-task.ts) against a local HTTP server standing in for the task
// metadata endpoint v4 and the ECS agent's task-protection endpoint (both past the network from the bot's side).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ecsTaskArn,
  maxProtectionMinutes,
  protectFromScaleIn,
  scaleInProtectionMinutes,
} from '../../bot-task/ecs-task';

const taskArn =
  'arn:aws:ecs:us-east-1:123456789012:task/MeetingBot-dev-Cluster/0123456789abcdef0123456789abcdef';

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
/** What the next request is answered with. */
let answer: { status: number; body: string } = { status: 200, body: '{}' };

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => resolve(body));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    seen.push({
      method: req.method!,
      url: req.url!,
      contentType: req.headers['content-type'],
      body: await readBody(req),
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
});

describe('ecsTaskArn', () => {
  it('reads TaskARN from $ECS_CONTAINER_METADATA_URI_V4/task', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ Cluster: 'c', TaskARN: taskArn, Family: 'meeting-bot-dev-bot' }),
    };
    const arn = await ecsTaskArn({ ECS_CONTAINER_METADATA_URI_V4: `${base}/v4/abc-123` });
    expect(arn).toBe(taskArn);
    expect(seen).toEqual([expect.objectContaining({ method: 'GET', url: '/v4/abc-123/task' })]);
  });

  it('is undefined off ECS, without a request', async () => {
    expect(await ecsTaskArn({})).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('throws when the endpoint fails or has no ARN', async () => {
    answer = { status: 500, body: 'boom' };
    await expect(ecsTaskArn({ ECS_CONTAINER_METADATA_URI_V4: base })).rejects.toThrow(/500/);
    answer = { status: 200, body: '{}' };
    await expect(ecsTaskArn({ ECS_CONTAINER_METADATA_URI_V4: base })).rejects.toThrow(/TaskARN/);
  });
});

describe('protectFromScaleIn', () => {
  const agent = () => ({ ECS_AGENT_URI: `${base}/api/agent-1` });

  it('PUTs {"ProtectionEnabled":true,"ExpiresInMinutes":N} to $ECS_AGENT_URI/task-protection/v1/state', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        protection: { ExpirationDate: '2026-01-01T04:15:00Z', ProtectionEnabled: true, TaskArn: taskArn },
      }),
    };
    expect(await protectFromScaleIn(255, agent())).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'PUT',
      url: '/api/agent-1/task-protection/v1/state',
      contentType: 'application/json',
    });
    expect(JSON.parse(seen[0]!.body)).toEqual({ ProtectionEnabled: true, ExpiresInMinutes: 255 });
  });

  it('keeps the minutes within what the agent accepts (1 to 2,880)', async () => {
    answer = { status: 200, body: JSON.stringify({ protection: { ProtectionEnabled: true } }) };
    await protectFromScaleIn(10_000, agent());
    await protectFromScaleIn(0.2, agent());
    expect(seen.map((s) => JSON.parse(s.body).ExpiresInMinutes)).toEqual([maxProtectionMinutes, 1]);
  });

  it('is a no-op off ECS', async () => {
    expect(await protectFromScaleIn(60, {})).toBe(false);
    expect(seen).toEqual([]);
  });

  it('throws with the agent’s reason when protection was refused', async () => {
    answer = {
      status: 400,
      body: JSON.stringify({
        error: { Arn: taskArn, Code: 'AccessDeniedException', Message: 'not authorized' },
      }),
    };
    await expect(protectFromScaleIn(60, agent())).rejects.toThrow(/AccessDeniedException: not authorized/);
    // ECS's own refusal comes back as a failure, with a 200.
    answer = {
      status: 200,
      body: JSON.stringify({
        failure: { Arn: taskArn, Reason: 'TASK_NOT_VALID', Detail: 'not in a service' },
      }),
    };
    await expect(protectFromScaleIn(60, agent())).rejects.toThrow(/TASK_NOT_VALID/);
    answer = { status: 503, body: 'agent restarting' };
    await expect(protectFromScaleIn(60, agent())).rejects.toThrow(/503.*agent restarting/);
  });
});

describe('scaleInProtectionMinutes', () => {
  it('covers the session’s longest stay plus a margin, and never more than 48 hours', () => {
    expect(scaleInProtectionMinutes(14_400)).toBe(240 + 15);
    expect(scaleInProtectionMinutes(61)).toBe(2 + 15);
    expect(scaleInProtectionMinutes(10 * 24 * 3600)).toBe(maxProtectionMinutes);
  });
});

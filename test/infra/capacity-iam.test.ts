// The grants of the pool's and the deployment's capacity, judged by the IAM policy simulator against the synthesized
// template: with maxBots the join counts the bot cluster's tasks (DescribeClusters of that cluster only, MAX_BOTS in
// its environment); the control function wakes the pool for a scheduled session (SendMessage on the pool queue).
import { rmSync } from 'node:fs';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TemplateResolver } from '../aws/support/deployed-stack';
import { denials, type IamRequest, simulate } from '../aws/support/iam-simulation';
import { motoAccountId } from '../aws/support/moto';
import { refTarget, type Synthesized, synthStack } from './synth-stack';

let s: Synthesized;
let resolver: TemplateResolver;
const clusterArn = `arn:aws:ecs:us-east-1:${motoAccountId}:cluster/bots`;

beforeAll(() => {
  s = synthStack({ maxBots: 500 }, { bundle: false });
  resolver = new TemplateResolver(s.json);
  resolver.set(logicalId(s.stack.runtime.cluster), { ref: 'bots', attrs: { Arn: clusterArn } });
}, 300_000);
afterAll(() => rmSync(s?.outdir ?? '/nonexistent', { recursive: true, force: true }));

const logicalId = (construct: IConstruct) => s.stack.getLogicalId(construct.node.defaultChild as never);
const fnProps = (fn: { function: IConstruct }) => s.json.Resources[logicalId(fn.function)]!.Properties!;
const role = (fn: { function: IConstruct }) => refTarget(fnProps(fn).Role)!;
const request = (principal: string, action: string, resource: string): IamRequest => ({
  principal,
  action,
  resource,
  context: { 'aws:SecureTransport': 'true' },
  from: action,
});

describe('capacity grants under the IAM simulation', () => {
  it('the join counts the bot cluster (MAX_BOTS), the control function wakes the pool; nobody else does', async () => {
    const join = s.stack.api.functions.get('join')!;
    const control = s.stack.controlPlane.function;
    const poolQueueArn = `arn:aws:sqs:us-east-1:${motoAccountId}:${logicalId(s.stack.pool!.queue)}`;
    expect((fnProps(join).Environment as { Variables: Record<string, unknown> }).Variables.MAX_BOTS).toBe(
      '500',
    );
    const allowed = [
      request(role(join), 'ecs:DescribeClusters', clusterArn),
      request(role(control), 'sqs:SendMessage', poolQueueArn),
    ];
    expect(denials(await simulate(s.json, resolver, allowed))).toEqual([]);
    const denied = [
      request(role(join), 'ecs:DescribeClusters', `arn:aws:ecs:us-east-1:${motoAccountId}:cluster/other`),
      request(role(control), 'ecs:DescribeClusters', clusterArn),
      request(role(s.stack.api.functions.get('status')!), 'sqs:SendMessage', poolQueueArn),
    ];
    const verdicts = await simulate(s.json, resolver, denied);
    expect(verdicts.map((v) => `${v.request.action} ${v.result}`)).toEqual(
      denied.map((r) => `${r.action} ImplicitlyDenied`),
    );
  });

  it('without maxBots the join has neither MAX_BOTS nor the grant', () => {
    const plain = synthStack({}, { bundle: false });
    try {
      const join = plain.stack.api.functions.get('join')!;
      const id = plain.stack.getLogicalId(join.function.node.defaultChild as never);
      const vars = (
        plain.json.Resources[id]!.Properties!.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      expect(vars.MAX_BOTS).toBeUndefined();
      expect(JSON.stringify(plain.json)).not.toContain('ecs:DescribeClusters');
    } finally {
      rmSync(plain.outdir, { recursive: true, force: true });
    }
  }, 300_000);
});

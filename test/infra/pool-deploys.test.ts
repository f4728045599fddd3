// A deploy never drains the warm pool: two syntheses that differ only in the bot's task definition (a new revision, as
// a new image or environment makes one) leave the pool service's resource byte for byte the same, so CloudFormation
// sends it no update and no DesiredCount; the new revision reaches the pool through an UpdateService with no desired
// count. The first deploy still creates the service with 0 tasks (stack.test.ts: "cannot block or roll back").
//
// The CloudFormation behaviour relied on:
// - "When you submit an update, AWS CloudFormation updates resources based on differences between what you submit and
//   the stack's current template. Resources that haven't changed run without disruption during the update process."
//   (CloudFormation User Guide, "Understand update behaviors of stack resources"). A resource with DesiredCount that is
//   updated for any reason sets the count again (the issue this avoids: aws/containers-roadmap#493); one not updated
//   keeps the count scaling set.
// - AWS::ECS::Service TaskDefinition: "The family and revision (family:revision) or full ARN of the task definition to
//   run in your service. If a revision isn't specified, the latest ACTIVE revision is used." So the service names the
//   family, which a new revision does not change.
// - ECS UpdateService: "If you modify the task definition with UpdateService, Amazon ECS spawns a task with the new
//   version of the task definition and then stops an old task after the new version is running"; desiredCount is an
//   optional member of the request, and the rollout's request has none.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CfnResource,
  refTarget,
  resourcesOfType,
  type Synthesized,
  sdkCallOf,
  synthStack,
} from './synth-stack';

let before: Synthesized;
let after: Synthesized;
beforeAll(() => {
  before = synthStack({}, { bundle: false });
  // Anything in the bot's container definition makes a new task revision; the log level is one.
  after = synthStack({ logLevel: 'debug' }, { bundle: false });
});
afterAll(() => {
  for (const s of [before, after]) rmSync(s.outdir, { recursive: true, force: true });
});

const only = (s: Synthesized, type: string): [string, CfnResource] => {
  const found = resourcesOfType(s.json, type);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('a deploy of a new bot task revision', () => {
  it('makes a new task definition revision (the premise of the test)', () => {
    const [id, taskDefinition] = only(before, 'AWS::ECS::TaskDefinition');
    expect(only(after, 'AWS::ECS::TaskDefinition')[0]).toBe(id);
    expect(after.json.Resources[id]).not.toEqual(taskDefinition);
  });

  it('leaves the pool service resource unchanged: CloudFormation updates nothing, its desired count stays', () => {
    const [id, service] = only(before, 'AWS::ECS::Service');
    expect(after.json.Resources[id]).toEqual(service);
    expect(service.Properties!.TaskDefinition).toBe(
      only(before, 'AWS::ECS::TaskDefinition')[1].Properties!.Family,
    );
    // Created empty on the first deploy; sent again only if the service's own properties ever change.
    expect(service.Properties!.DesiredCount).toBe(0);
    // Nor does the scaling's target change (its minimum and maximum are the pool's settings).
    const [targetId, target] = only(before, 'AWS::ApplicationAutoScaling::ScalableTarget');
    expect(after.json.Resources[targetId]).toEqual(target);
  });

  it('rolls the pool onto the revision with an UpdateService that names it and no desired count', () => {
    const [serviceId] = only(before, 'AWS::ECS::Service');
    const [taskDefinitionId] = only(before, 'AWS::ECS::TaskDefinition');
    const [id, rollout] = only(before, 'Custom::AWS');
    for (const event of ['Create', 'Update'] as const) {
      const call = sdkCallOf(rollout, event);
      expect(call).toMatchObject({ service: 'ECS', action: 'UpdateService' });
      expect(call.parameters).toEqual({
        cluster: expect.any(String),
        service: `<${serviceId}>`,
        taskDefinition: `<${taskDefinitionId}>`,
      });
    }
    // Its properties name the revision (a Ref), so CloudFormation updates it exactly when a revision is new: the
    // template text is the same, the value of the Ref is not.
    expect(after.json.Resources[id]).toEqual(rollout);
    // It may call UpdateService on the pool service only.
    const policies = resourcesOfType(before.json, 'AWS::IAM::Policy').filter(([, p]) =>
      JSON.stringify(p.Properties!.PolicyDocument).includes('ecs:UpdateService'),
    );
    const rolloutRole = refTarget(
      before.json.Resources[refTarget(rollout.Properties!.ServiceToken)!]!.Properties!.Role,
    );
    const rolloutPolicy = policies.find(([, p]) =>
      (p.Properties!.Roles as unknown[]).some((r) => refTarget(r) === rolloutRole),
    )!;
    const statement = (
      rolloutPolicy[1].Properties!.PolicyDocument.Statement as { Action: string; Resource: unknown }[]
    ).find((st) => st.Action === 'ecs:UpdateService')!;
    expect(refTarget(statement.Resource)).toBe(serviceId);
  });

  it('keeps idle bots warm through the rollout: new ones start before old ones stop', () => {
    const [, service] = only(before, 'AWS::ECS::Service');
    expect(service.Properties!.DeploymentConfiguration).toMatchObject({
      MinimumHealthyPercent: 100,
      MaximumPercent: 200,
      DeploymentCircuitBreaker: { Enable: true, Rollback: true },
    });
  });
});

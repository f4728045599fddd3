// A deploy of a new bot task revision against moto_server's ECS: the pool service created as the template declares it
// (its task family, 0 tasks), raised by scaling, then the new revision rolled out with the template's own custom
// resource call. The desired count scaling set stays; the service runs the new revision. The template side (the
// service resource unchanged by a new revision, so CloudFormation sends nothing) is test/infra/pool-deploys.test.ts.
import { rmSync } from 'node:fs';
import {
  CreateClusterCommand,
  CreateServiceCommand,
  DescribeServicesCommand,
  ECSClient,
  RegisterTaskDefinitionCommand,
  UpdateServiceCommand,
} from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourcesOfType, type Synthesized, sdkCallOf, synthStack } from '../infra/synth-stack';
import { requires, skipReason } from '../support/requirements';
import { clientConfig } from './support/deployed-stack';
import { type Moto, startMoto } from './support/moto';

const skip = skipReason(requires.motoServer());

describe.skipIf(skip)('the warm pool through a deploy, against moto', () => {
  let s: Synthesized;
  let moto: Moto;
  let ecs: ECSClient;
  beforeAll(async () => {
    s = synthStack({}, { bundle: false });
    moto = await startMoto();
    ecs = new ECSClient(clientConfig(moto.endpoint));
  }, 180_000);
  afterAll(async () => {
    await moto?.stop();
    if (s) rmSync(s.outdir, { recursive: true, force: true });
  });

  it('keeps the count scaling set and runs the new revision', async () => {
    const [[serviceId, service]] = resourcesOfType(s.json, 'AWS::ECS::Service') as [[string, never]];
    const [[taskId, task]] = resourcesOfType(s.json, 'AWS::ECS::TaskDefinition') as [[string, never]];
    const [[, rollout]] = resourcesOfType(s.json, 'Custom::AWS') as [[string, never]];
    const declared = (service as { Properties: Record<string, unknown> }).Properties;
    const family = (task as { Properties: { Family: string } }).Properties.Family;
    const cluster = 'meeting-bot-pool';
    await ecs.send(new CreateClusterCommand({ clusterName: cluster }));
    const register = async () =>
      (
        await ecs.send(
          new RegisterTaskDefinitionCommand({
            family,
            requiresCompatibilities: ['FARGATE'],
            networkMode: 'awsvpc',
            cpu: '1024',
            memory: '2048',
            containerDefinitions: [{ name: 'bot', image: 'bot:1', memory: 2048 }],
          }),
        )
      ).taskDefinition!.taskDefinitionArn!;
    const first = await register();
    // The first deploy: CloudFormation creates the service as declared, naming the family (its latest revision).
    await ecs.send(
      new CreateServiceCommand({
        cluster,
        serviceName: serviceId,
        taskDefinition: declared.TaskDefinition as string,
        desiredCount: declared.DesiredCount as number,
      }),
    );
    const described = async () =>
      (await ecs.send(new DescribeServicesCommand({ cluster, services: [serviceId] }))).services![0]!;
    expect(await described()).toMatchObject({ desiredCount: 0, taskDefinition: first });
    // Scaling fills it (Application Auto Scaling sets the desired count).
    await ecs.send(new UpdateServiceCommand({ cluster, service: serviceId, desiredCount: 5 }));

    // The next deploy registers a new revision; the service resource is unchanged, so CloudFormation calls nothing on
    // it; the rollout resource's call goes out with the new revision.
    const second = await register();
    const call = sdkCallOf(rollout, 'Update', (id) =>
      id === serviceId ? serviceId : id === taskId ? second : cluster,
    );
    expect(call).toMatchObject({ service: 'ECS', action: 'UpdateService' });
    await ecs.send(new UpdateServiceCommand(call.parameters as never));
    expect(await described()).toMatchObject({ desiredCount: 5, taskDefinition: second });
  });
});

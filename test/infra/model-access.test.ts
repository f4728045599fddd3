// The default Bedrock models are the inference profiles of the deployment region's geography, and the IAM policies
// let the bot and the results function invoke exactly those (profile, and foundation model in the profile's
// regions): the template resolved for several regions and judged by the IAM simulator.
import { rmSync } from 'node:fs';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelRegions } from '../../infra/constructs/model-access';
import { doctorOutputKeys } from '../../infra/outputs';
import { TemplateResolver } from '../aws/support/deployed-stack';
import { denials, type IamRequest, simulate } from '../aws/support/iam-simulation';
import { motoAccountId } from '../aws/support/moto';
import { type Synthesized, synthStack } from './synth-stack';

let s: Synthesized;
beforeAll(() => {
  s = synthStack({}, { bundle: false });
});
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

const logicalId = (c: IConstruct) => s.stack.getLogicalId(c.node.defaultChild as never);
const taskRole = () => logicalId(s.stack.runtime.taskDefinition.taskRole);
const resultsRole = () => logicalId(s.stack.delivery.resultsFunction.role as unknown as IConstruct);

/** The model ids the bot task and the results function get, as CloudFormation resolves them in `region`. */
function modelIdsIn(region: string) {
  const resolver = new TemplateResolver(s.json, region);
  const [container] =
    s.json.Resources[logicalId(s.stack.runtime.taskDefinition)]!.Properties!.ContainerDefinitions;
  const env = Object.fromEntries(
    (container.Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]),
  );
  const results = s.json.Resources[logicalId(s.stack.delivery.resultsFunction.function)]!.Properties!;
  return {
    resolver,
    conversation: resolver.resolve(env.CONVERSATION_MODEL_ID) as string,
    insights: resolver.resolve(results.Environment.Variables.INSIGHTS_MODEL_ID) as string,
    output: (key: string) =>
      resolver.resolve((s.json.Outputs as Record<string, { Value: unknown }>)[key]!.Value) as string,
  };
}

const invoke = (principal: string, resource: string): IamRequest => ({
  principal,
  action: 'bedrock:InvokeModel',
  resource,
  context: { 'aws:SecureTransport': 'true' },
  from: 'bedrock-runtime:Converse',
});
const profileArn = (region: string, id: string) =>
  `arn:aws:bedrock:${region}:${motoAccountId}:inference-profile/${id}`;
const modelArn = (region: string, id: string) => `arn:aws:bedrock:${region}::foundation-model/${id}`;

describe('default Bedrock models', () => {
  it.each([
    ['us-east-1', 'us', 'us-west-2', 'eu-west-1'],
    ['us-east-2', 'us', 'us-east-1', 'ap-northeast-1'],
    ['eu-west-1', 'eu', 'eu-central-1', 'us-east-1'],
    ['ap-southeast-2', 'apac', 'ap-northeast-1', 'eu-west-3'],
  ])(
    'in %s are the %s. inference profiles, invocable there and in their geography only',
    async (region, geo, inside, outside) => {
      const { resolver, conversation, insights, output } = modelIdsIn(region);
      expect(conversation).toBe(`${geo}.amazon.nova-lite-v1:0`);
      expect(insights).toBe(`${geo}.amazon.nova-pro-v1:0`);
      // The preflight reads the same ids from the stack's outputs.
      expect(output(doctorOutputKeys.conversationModel)).toBe(conversation);
      expect(output(doctorOutputKeys.insightsModel)).toBe(insights);

      const allowed = [
        invoke(taskRole(), profileArn(region, conversation)),
        invoke(taskRole(), modelArn(region, 'amazon.nova-lite-v1:0')),
        invoke(taskRole(), modelArn(inside, 'amazon.nova-lite-v1:0')),
        invoke(resultsRole(), profileArn(region, insights)),
        invoke(resultsRole(), modelArn(inside, 'amazon.nova-pro-v1:0')),
      ];
      expect(denials(await simulate(s.json, resolver, allowed))).toEqual([]);
      const refused = [
        // Outside the profile's geography, another engine's model, a model nobody configured.
        invoke(taskRole(), modelArn(outside, 'amazon.nova-lite-v1:0')),
        invoke(taskRole(), profileArn(region, insights)),
        invoke(taskRole(), modelArn(region, 'anthropic.claude-haiku-4-5-20251001-v1:0')),
        invoke(resultsRole(), modelArn(outside, 'amazon.nova-pro-v1:0')),
      ];
      const verdicts = await simulate(s.json, resolver, refused);
      expect(verdicts.map((v) => v.result)).toEqual(refused.map(() => 'ImplicitlyDenied'));
    },
  );

  it('cover exactly the documented regions; in any other the deploy is refused before anything is created', () => {
    expect(Object.keys(s.json.Mappings?.BedrockGeography ?? {}).sort()).toEqual(
      Object.keys(defaultModelRegions).sort(),
    );
    // CloudFormation resolves Fn::FindInMap when it validates the template: a missing key fails the change set.
    expect(() => modelIdsIn('sa-east-1')).toThrow(/no mapping BedrockGeography\.sa-east-1/);
  });
});

describe('a configured inference profile', () => {
  it('is used as given, and its foundation model allowed in its geography only', async () => {
    const profile = 'eu.anthropic.claude-haiku-4-5-20251001-v1:0';
    const c = synthStack({ conversationModelId: profile }, { bundle: false });
    try {
      const resolver = new TemplateResolver(c.json, 'eu-west-1');
      const role = c.stack.getLogicalId(c.stack.runtime.taskDefinition.taskRole.node.defaultChild as never);
      const model = 'anthropic.claude-haiku-4-5-20251001-v1:0';
      const verdicts = await simulate(c.json, resolver, [
        invoke(role, profileArn('eu-west-1', profile)),
        invoke(role, modelArn('eu-north-1', model)),
        invoke(role, modelArn('us-east-1', model)),
      ]);
      expect(verdicts.map((v) => v.result)).toEqual(['Allowed', 'Allowed', 'ImplicitlyDenied']);
    } finally {
      rmSync(c.outdir, { recursive: true, force: true });
    }
  });
});

// Bedrock and Polly permissions, scoped to the configured model ids and to speech synthesis only; and the default
// Bedrock models, as the inference profile of the deployment region's geography.
import { Aws, CfnMapping, Fn, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { grantWithWildcard } from './wildcard-grant';

/** Cross-region inference profile ids start with a geography (`us.anthropic.…`, `global.…`). */
const inferenceProfilePrefix = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

/**
 * Where a geography's profiles route requests: the region names' prefix. A profile of another geography (`global.`,
 * or one whose destinations we have not checked) routes anywhere, so its foundation model is allowed in every region.
 */
const destinationRegions: Record<string, string> = { us: 'us', 'us-gov': 'us-gov', eu: 'eu', apac: 'ap' };

/**
 * The regions whose default models are the geography's inference profiles: the source regions AWS documents for the
 * Amazon Nova Lite and Pro profiles (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html).
 * Nova takes on-demand requests by its plain model id only in us-east-1, so a profile is needed everywhere else; in
 * us-east-1 the `us.` profile works as well and spreads load. docs/deploy.md lists them.
 */
export const defaultModelRegions: Record<string, 'us' | 'eu' | 'apac'> = {
  'us-east-1': 'us',
  'us-east-2': 'us',
  'us-west-2': 'us',
  'eu-central-1': 'eu',
  'eu-north-1': 'eu',
  'eu-south-1': 'eu',
  'eu-south-2': 'eu',
  'eu-west-1': 'eu',
  'eu-west-3': 'eu',
  'ap-northeast-1': 'apac',
  'ap-northeast-2': 'apac',
  'ap-south-1': 'apac',
  'ap-southeast-1': 'apac',
  'ap-southeast-2': 'apac',
};

/** The foundation models behind the defaults, used through the region's inference profile. */
export const defaultFoundationModels = {
  conversation: 'amazon.nova-lite-v1:0',
  insights: 'amazon.nova-pro-v1:0',
} as const;

/** A Bedrock model as the stack uses it: the id a process is given, and the ARNs invoking it is authorized on. */
export interface BedrockModel {
  /** The model or inference profile id (a CloudFormation expression for a default chosen by region). */
  id: string;
  resources: string[];
}

const mappingId = 'BedrockGeography';

/** The region → geography mapping, one per stack; a region missing from it fails the deploy before any resource. */
function geographyMapping(stack: Stack): CfnMapping {
  const existing = stack.node.tryFindChild(mappingId);
  if (existing) return existing as CfnMapping;
  return new CfnMapping(stack, mappingId, {
    mapping: Object.fromEntries(
      Object.entries(defaultModelRegions).map(([region, geo]) => [
        region,
        { profile: geo, regions: destinationRegions[geo]! },
      ]),
    ),
  });
}

const foundationModelArn = (stack: Stack, region: string, id: string) =>
  stack.formatArn({
    service: 'bedrock',
    region,
    account: '',
    resource: 'foundation-model',
    resourceName: id,
  });
const inferenceProfileArn = (stack: Stack, id: string) =>
  stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: id });

/**
 * The configured model, or the default foundation model through the inference profile of the deployment region's
 * geography (resolved by CloudFormation: the stack is environment-agnostic).
 */
export function bedrockModel(
  scope: Construct,
  configured: string | undefined,
  engine: keyof typeof defaultFoundationModels,
): BedrockModel {
  const stack = Stack.of(scope);
  if (configured) return { id: configured, resources: bedrockModelArns(stack, configured) };
  const model = defaultFoundationModels[engine];
  const geography = geographyMapping(stack);
  const id = Fn.join('.', [geography.findInMap(Aws.REGION, 'profile'), model]);
  return {
    id,
    resources: [
      inferenceProfileArn(stack, id),
      foundationModelArn(stack, Fn.join('', [geography.findInMap(Aws.REGION, 'regions'), '-*']), model),
    ],
  };
}

/** The resource ARNs that invoking `modelId` is authorized against. */
export function bedrockModelArns(stack: Stack, modelId: string): string[] {
  if (modelId.startsWith('arn:')) return [modelId];
  const prefix = inferenceProfilePrefix.exec(modelId)?.[1];
  if (!prefix) return [foundationModelArn(stack, stack.region, modelId)];
  // An inference profile routes each request to one of its destination regions, and Bedrock authorizes the call
  // against the foundation model in the region that serves it: the model ARN in each of those regions.
  const regions = destinationRegions[prefix];
  return [
    inferenceProfileArn(stack, modelId),
    foundationModelArn(stack, regions ? `${regions}-*` : '*', modelId.slice(prefix.length + 1)),
  ];
}

/** Converse / InvokeModel (and their streaming forms) on exactly the given model. */
export function grantBedrockInvoke(grantee: iam.IGrantable, model: BedrockModel): void {
  grantWithWildcard(
    grantee,
    new iam.PolicyStatement({
      actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
      resources: model.resources,
    }),
    // Only reached for inference profiles; a plain model id yields one exact foundation-model ARN.
    'A cross-region inference profile serves each request from one of its destination regions, and Bedrock ' +
      'authorizes the call against the foundation model in that region: the model ARN in the geography’s regions ' +
      '(`us-*`, `eu-*`, `ap-*`; every region `*` for a global profile). The model id itself is exact.',
  );
}

/** polly:SynthesizeSpeech only, in the stack's region. */
export function grantSpeechSynthesis(grantee: iam.IGrantable, stack: Stack): void {
  grantWithWildcard(
    grantee,
    new iam.PolicyStatement({
      actions: ['polly:SynthesizeSpeech'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': stack.region } },
    }),
    // AWS requires `*` here (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonpolly.html).
    'polly:SynthesizeSpeech has resource-level permissions only for lexicons, and the bot uses none: a lexicon ARN ' +
      'would not authorize a request that names no lexicon. One action only, pinned to the stack region.',
  );
}

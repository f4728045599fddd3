// Bedrock and Polly permissions, scoped to the configured model ids and to speech synthesis only.
import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { grantWithWildcard } from './wildcard-grant';

/** Cross-region inference profile ids start with a geography (`us.anthropic.…`, `global.…`). */
const inferenceProfilePrefix = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

/** The resource ARNs that invoking `modelId` is authorized against. */
export function bedrockModelArns(stack: Stack, modelId: string): string[] {
  if (modelId.startsWith('arn:')) return [modelId];
  const foundationModel = (region: string, id: string) =>
    stack.formatArn({
      service: 'bedrock',
      region,
      account: '',
      resource: 'foundation-model',
      resourceName: id,
    });
  if (!inferenceProfilePrefix.test(modelId)) return [foundationModel(stack.region, modelId)];
  // An inference profile routes each request to one of several regions, and Bedrock authorizes the call against
  // the foundation model in the region that serves it: AWS requires the model ARN in every region (`*`).
  return [
    stack.formatArn({ service: 'bedrock', resource: 'inference-profile', resourceName: modelId }),
    foundationModel('*', modelId.replace(inferenceProfilePrefix, '')),
  ];
}

/** Converse / InvokeModel (and their streaming forms) on exactly the given model. */
export function grantBedrockInvoke(grantee: iam.IGrantable, stack: Stack, modelId: string): void {
  grantWithWildcard(
    grantee,
    new iam.PolicyStatement({
      actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
      resources: bedrockModelArns(stack, modelId),
    }),
    // Only reached for inference profiles; a plain model id yields one exact foundation-model ARN.
    'A cross-region inference profile serves each request from one of its regions, and Bedrock authorizes the ' +
      'call against the foundation model in that region: AWS requires the model ARN for every region (`*`). ' +
      'The model id itself is exact.',
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

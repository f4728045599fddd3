// cdk-nag AwsSolutions findings this stack accepts, each with the reason it is right here. (Wildcard resources
// that this stack grants itself are acknowledged where they are granted: constructs/wildcard-grant.ts.)
import { Validations } from 'aws-cdk-lib';
import type { MeetingBotStack } from './stack';

export function applyNagSuppressions(stack: MeetingBotStack): void {
  Validations.of(stack.api.httpApi).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason:
      'Authentication runs inside the handlers (ARCHITECTURE.md): API keys are checked against their SHA-256 ' +
      'hash in DynamoDB so that every 401 carries the API error body and WWW-Authenticate; GET /openapi.json is ' +
      'public by design. An API Gateway authorizer would answer 401/403 with its own body.',
  });

  Validations.of(stack.runtime.taskDefinition).acknowledge({
    id: 'AwsSolutions-ECS2',
    reason:
      'The environment holds non-secret settings only (table name, queue URL, region, log level, model id), which ' +
      'change with a deployment anyway; the one secret (the Daily API key) comes from Secrets Manager via `secrets`.',
  });

  const executionRole = stack.runtime.taskDefinition.executionRole;
  if (executionRole) {
    Validations.of(executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecr:GetAuthorizationToken (added by CDK to pull the image asset) has no resource-level permissions: AWS ' +
        'requires `*` (https://docs.aws.amazon.com/AmazonECR/latest/userguide/security-iam-awsmanpol.html). ' +
        'Image pulls themselves are scoped to the asset repository.',
    });
  }

  Validations.of(stack.recordings.bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      'Server access logs would hold every recording key (a bot id) a second time, in a bucket of their own outside ' +
      'the retention and deletion of the recordings; the API decides who may read a recording, and its requests ' +
      'are logged by the status function.',
  });

  if (stack.data.pointInTimeRecoveryDays === 0) {
    Validations.of(stack.data.table).acknowledge({
      id: 'AwsSolutions-DDB3',
      reason:
        'Point-in-time recovery is turned off by the deployment setting pointInTimeRecoveryDays=0: its copies would ' +
        'keep deleted meetings for up to 35 days, and this stack chose erasure over restores (docs/data-retention.md).',
    });
  }

  Validations.of(stack.operations.eventsDlq).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue: of the EventBridge targets (task-stopped, sweeper) and of their ' +
      'async invocations (Lambda on-failure destination), which cdk-nag cannot see as it only follows redrive ' +
      'policies. Its depth is alarmed.',
  });
}

// One Lambda function of the service: an esbuild bundle of a `functions/` entry (never Docker), ARM64, Node.js 24,
// its own log group and its own role that starts with nothing but writing to that log group.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionLimits } from '../limits';
import type { MeetingBotSettings } from '../settings';
import { addEnvironment } from './environment';
import { metricsEnvironment } from './service-metrics';

/** The repository root: entries, the lock file and the Docker build context are resolved from here. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Node.js 24: the newest Lambda runtime (cdk-nag AwsSolutions-L1), at least Node.js 22. */
export const lambdaRuntime = lambda.Runtime.NODEJS_24_X;

/** Powertools' `service` in every log line and X-Ray's service annotation (functions/tracing.ts). */
export const serviceName = 'meeting-bot';

export interface ServiceFunctionProps {
  /** Entry file relative to the repository root, exporting `handler`. */
  entry: string;
  settings: MeetingBotSettings;
  environment?: Record<string, string>;
  /** Timeout and memory (infra/limits.ts); ≥ 512 MB: Lambda CPU scales with memory, and cold starts with CPU. */
  limits: FunctionLimits;
  description: string;
}

/** A log group kept with the data in production (RETAIN), removed with a dev stack. */
export function logGroup(scope: Construct, id: string, settings: MeetingBotSettings): logs.LogGroup {
  return new logs.LogGroup(scope, id, {
    retention: settings.logRetentionDays,
    removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { settings } = props;
    this.logGroup = logGroup(this, 'Logs', settings);
    // Our own role instead of AWSLambdaBasicExecutionRole (a managed policy with logs:* on every log group).
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (${settings.stage})`,
    });
    this.logGroup.grantWrite(this.role);
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'xray:PutTraceSegments and xray:PutTelemetryRecords (added by CDK for active tracing) have no resource-level ' +
        'permissions: AWS requires `*` (https://docs.aws.amazon.com/service-authorization/latest/reference/' +
        'list_awsx-ray.html). The role has no other wildcard resource unless granted through wildcard-grant.ts.',
    });

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(repoRoot, props.entry),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: join(repoRoot, 'package-lock.json'),
      runtime: lambdaRuntime,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.limits.memoryMiB,
      timeout: Duration.seconds(props.limits.timeoutSeconds),
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      // X-Ray: Lambda's segment per invocation, functions/tracing.ts's subsegments and SDK calls beneath it.
      tracing: lambda.Tracing.ACTIVE,
      bundling: {
        // Synthesis bundles with the esbuild in node_modules; it must never fall back to a Docker build.
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        // ESM bundles of CommonJS dependencies need a require() in scope (as scripts/build.ts does).
        banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
        mainFields: ['module', 'main'],
        minify: true,
        // No source maps in the hot path: they add size and --enable-source-maps slows every stack trace.
        sourceMap: false,
        // The AWS SDK is bundled (pinned by our lock file, tree-shaken) rather than taken from the runtime.
        bundleAwsSDK: true,
        externalModules: [],
        metafile: false,
        logLevel: LogLevel.WARNING,
      },
    });
    this.addEnvironment({
      LOG_LEVEL: settings.logLevel,
      POWERTOOLS_SERVICE_NAME: serviceName,
      ...metricsEnvironment(settings),
      ...props.environment,
    });
  }

  /** Adds to the function's environment, each queue URL and ECS runtime name into its JSON variable. */
  addEnvironment(env: Record<string, string>): void {
    addEnvironment(this.function, env);
  }
}

// Synthesizes the MeetingBotStack for the infra tests — with no AWS account and no Docker — and reads the template.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parseSettings, type SettingsInput } from '../../infra/settings';
import { MeetingBotStack, stackName } from '../../infra/stack';

export interface Synthesized {
  app: App;
  stack: MeetingBotStack;
  template: Template;
  /** The cloud assembly directory (staged assets, asset manifest). */
  outdir: string;
  json: TemplateJson;
}

export interface TemplateJson {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, unknown>;
  Mappings?: Record<string, Record<string, Record<string, unknown>>>;
}

export interface CfnResource {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are schemaless JSON, read by the tests.
  Properties?: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
}

/**
 * Builds the stack as `cdk synth` does. `bundle: false` skips the esbuild bundling of the functions (the
 * `aws:cdk:bundling-stacks` context) for variants that only look at configuration. `analyticsReporting: true` adds
 * the `AWS::CDK::Metadata` resource the CLI adds (cfn-lint recognises a CDK template by it).
 */
export function synthStack(
  settings: SettingsInput = {},
  options: { bundle?: boolean; analyticsReporting?: boolean } = {},
): Synthesized {
  // Any attempt to run Docker (bundling fallback, image build) fails loudly: synthesis must never need it.
  process.env.CDK_DOCKER = '/nonexistent/docker-must-not-run';
  const outdir = mkdtempSync(join(tmpdir(), 'meeting-bot-cdk-'));
  const app = new App({
    outdir,
    analyticsReporting: options.analyticsReporting,
    context: options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {},
  });
  const parsed = parseSettings(settings);
  const stack = new MeetingBotStack(app, stackName(parsed.stage), { settings: parsed });
  const template = Template.fromStack(stack);
  app.synth();
  const json = JSON.parse(
    readFileSync(join(outdir, `${stack.stackName}.template.json`), 'utf8'),
  ) as TemplateJson;
  return { app, stack, template, outdir, json };
}

/** Resources of one CloudFormation type, by logical id. */
export function resourcesOfType(json: TemplateJson, type: string): [string, CfnResource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/** The logical id a `Ref` / `Fn::GetAtt` points at, or undefined. */
export function refTarget(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return v.Ref;
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  return undefined;
}

export const asArray = <T>(v: T | T[] | undefined): T[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

/**
 * The SDK call an AwsCustomResource makes for a CloudFormation event, with each `Ref` / `Fn::GetAtt` in it written as
 * `<logical id>` (or as `resolve` answers for that id).
 */
export function sdkCallOf(
  resource: CfnResource,
  event: 'Create' | 'Update' | 'Delete',
  resolve: (logicalId: string) => string = (id) => `<${id}>`,
): { service: string; action: string; parameters: Record<string, unknown> } {
  const parts = resource.Properties![event]['Fn::Join'][1] as unknown[];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : resolve(refTarget(p)!))).join(''));
}

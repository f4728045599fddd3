// Synthesizes the MeetingBotStack for the infra tests — with no AWS account and no Docker — and reads the template.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { groupNames } from '../../core/config';
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

/**
 * A function's environment variables (or a container's, as name/value pairs) with each JSON variable of
 * core/config.ts (QUEUE_URLS, BOT_RUNTIME) read back into its names: CDK renders such a variable as a `Fn::Join` of
 * JSON text and references. A value with references is the reference, or a `Fn::Join` of its parts.
 */
export function envOf(
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are schemaless JSON, read by the tests.
  variables: Record<string, any> | { Name: string; Value: unknown }[],
  // biome-ignore lint/suspicious/noExplicitAny: as above.
): Record<string, any> {
  const env = Array.isArray(variables)
    ? Object.fromEntries(variables.map((e) => [e.Name, e.Value]))
    : { ...variables };
  for (const group of Object.keys(groupNames)) {
    const value = env[group];
    if (value === undefined) continue;
    delete env[group];
    const parts: unknown[] = typeof value === 'string' ? [value] : value['Fn::Join'][1];
    const refs: unknown[] = [];
    const text = parts.map((p) => (typeof p === 'string' ? p : `@@${refs.push(p) - 1}@@`)).join('');
    for (const [name, v] of Object.entries(JSON.parse(text) as Record<string, string>)) {
      const pieces = v.split(/@@(\d+)@@/).map((s, i) => (i % 2 ? refs[Number(s)] : s));
      const kept = pieces.filter((p) => p !== '');
      env[name] = kept.length <= 1 ? (kept[0] ?? '') : { 'Fn::Join': ['', kept] };
    }
  }
  return env;
}

// The deployment's typed settings: read from CDK context (`cdk.json` or `-c key=value`), validated, defaulted.
// Every key is documented in docs/deploy.md ("Context values"); `npx cdk synth` works with none of them set.
import { z } from 'zod';
import { poolMaxLimit, poolSizeLimit } from '../core/bots/pool-bounds';

/** Stages treated as production when `production` is not given: data is retained and protected. */
const productionStageNames = /^(prod|production|live)(-.*)?$/;

/** A placeholder SES identity that lets a dev stack synthesize; a production stack refuses it. */
export const placeholderSesIdentity = 'example.com';

const number = (def: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(def);
/** `-c key=a,b` or `-c 'key=["a","b"]'` from the CLI, or a JSON array in cdk.json. */
const stringList = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    const s = v.trim();
    if (s === '') return [];
    return s.startsWith('[') ? JSON.parse(s) : s.split(',').map((x) => x.trim());
  },
  z.array(z.string().min(1)).default([]),
);
const bool = (def?: boolean) =>
  z
    .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
    .optional()
    .transform((v) => v ?? def);

/** Retention periods CloudWatch Logs accepts (days). */
const retentionDays = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 3653];

/** Valid Fargate CPU → memory (MiB) combinations for the sizes a browser bot can use. */
const fargateSizes: Record<number, { min: number; max: number; step: number }> = {
  512: { min: 1024, max: 4096, step: 1024 },
  1024: { min: 2048, max: 8192, step: 1024 },
  2048: { min: 4096, max: 16384, step: 1024 },
  4096: { min: 8192, max: 30720, step: 1024 },
};

const contextSchema = z.object({
  /** Stage name: part of the stack and resource names (`MeetingBot-<stage>`). Lower case, digits, dashes. */
  stage: z
    .string()
    .regex(
      /^[a-z][a-z0-9-]{0,19}$/,
      'lower-case letters, digits and dashes, at most 20, starting with a letter',
    )
    .default('dev'),
  /** Production: table deletion protection, RETAIN on data and logs. Default: stage is prod/production/live. */
  production: bool(),
  /** SES identity (verified domain or e-mail address) the delivery Lambda may send as. */
  sesIdentity: z.string().min(3).default(placeholderSesIdentity),
  /** From address of result e-mails; default `meeting-bot@<domain>` (or the identity when it is an address). */
  mailFrom: z.email().optional(),
  /**
   * Bedrock model (or inference profile) id the bot converses with. Unset: Amazon Nova Lite through the inference
   * profile of the deployment region's geography (infra/constructs/model-access.ts).
   */
  conversationModelId: z.string().min(3).optional(),
  /** Bedrock model (or inference profile) id that extracts Q&A pairs, summary and evaluation; unset: Nova Pro, likewise. */
  insightsModelId: z.string().min(3).optional(),
  /** Secrets Manager secret (name) holding the Daily API key as a plain string. */
  dailyApiKeySecretName: z.string().min(1).default('meeting-bot/daily-api-key'),
  /**
   * Hosts a Daily room_url may name (each with its subdomains): `daily.co` covers every `<team>.daily.co`; add
   * Daily custom domains (`-c dailyRoomDomains=daily.co,meet.example.com`).
   */
  dailyRoomDomains: z.preprocess(
    (v) => (v === undefined ? ['daily.co'] : v),
    stringList.pipe(
      z
        .array(z.string().regex(/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, 'a domain such as daily.co'))
        .min(1),
    ),
  ),
  /** Bot task size: Fargate CPU units and memory (MiB). */
  botTaskCpu: z.coerce
    .number()
    .int()
    .refine((v) => v in fargateSizes, 'one of 512, 1024, 2048, 4096')
    .default(1024),
  botTaskMemoryMiB: z.coerce.number().int().default(2048),
  /** CPU architecture of the bot task (and of its image build): arm64 is about 20% cheaper on Fargate. */
  botTaskArchitecture: z.enum(['x86_64', 'arm64']).default('x86_64'),
  /** `public`: tasks in public subnets with public IPs, no NAT cost. `private`: private subnets + one NAT gateway. */
  botNetwork: z.enum(['public', 'private']).default('public'),
  /** FARGATE_SPOT first with FARGATE as the fallback (true), or FARGATE only (false). */
  useFargateSpot: bool(true),
  /**
   * Warm pool: idle bot tasks kept ready to claim a join within seconds; 0 turns the pool off (every join
   * starts a task, 30–90 s). At most poolSizeLimit (1,000), a cost guard: core/bots/pool-bounds.ts gives the reasons.
   */
  botPoolSize: number(2, 0, poolSizeLimit),
  /**
   * The most pooled tasks (idle and busy) the pool scales out to, and the bound of the scheduler's and the storm's
   * growth; at least botPoolSize, at most ECS's 5,000 tasks per service (core/bots/pool-bounds.ts), and within the
   * account's Fargate vCPU quota (admin doctor checks it). A 1,000-bot schedule needs about 1,000 + botPoolSize.
   */
  botPoolMax: number(10, 1, poolMaxLimit),
  /**
   * The most bot tasks the deployment runs at once (MAX_BOTS), idle pooled ones included; a join beyond it answers
   * 503 capacity_exhausted. 0: no maximum of ours, only the account's Fargate quota.
   */
  maxBots: number(0, 0, 100_000),
  /** Availability zones for the VPC: 1 or 2 (an environment-agnostic stack gets two from CDK). */
  maxAzs: number(2, 1, 2),
  /** CloudWatch Logs retention (days) for every log group. */
  logRetentionDays: z.coerce
    .number()
    .int()
    .refine((v) => retentionDays.includes(v), `one of ${retentionDays.join(', ')}`)
    .default(30),
  /**
   * Days a recording (its pieces and its file) is kept in the recordings bucket before S3 deletes it (docs/recording.md).
   */
  recordingRetentionDays: number(30, 1, 3650),
  /**
   * Days of the table's point-in-time recovery: a copy of every item, deleted meetings' content included, kept that
   * long after each write (docs/data-retention.md). 1–35 (DynamoDB's range); 0 turns it off (no restore after an
   * operator's mistake: only for stacks whose data can be lost).
   */
  pointInTimeRecoveryDays: number(35, 0, 35),
  /** LOG_LEVEL of every function and the bot task. */
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** Browser origins allowed to call the API (CORS); empty: no CORS headers (server-to-server use). */
  corsAllowedOrigins: stringList,
  /** E-mail subscribed to the alarm topic (confirm the subscription mail); none: subscribe yourself. */
  alarmEmail: z.email().optional(),
  /** API stage throttling: steady requests per second and burst, across all callers. */
  apiThrottleRateLimit: number(50, 1, 10_000),
  apiThrottleBurstLimit: number(100, 1, 5_000),
});

const issue = (ctx: z.RefinementCtx, key: string, message: string) =>
  ctx.addIssue({ code: 'custom', path: [key], message });

export const settingsSchema = contextSchema
  .superRefine((s, ctx) => {
    const size = fargateSizes[s.botTaskCpu];
    const memory = s.botTaskMemoryMiB;
    if (size && (memory < size.min || memory > size.max || memory % size.step)) {
      issue(
        ctx,
        'botTaskMemoryMiB',
        `with botTaskCpu ${s.botTaskCpu}: ${size.min}–${size.max} in steps of ${size.step}`,
      );
    }
    if (s.botPoolMax < s.botPoolSize) issue(ctx, 'botPoolMax', `at least botPoolSize (${s.botPoolSize})`);
  })
  .transform((s, ctx) => {
    const production = s.production ?? productionStageNames.test(s.stage);
    if (production && s.sesIdentity === placeholderSesIdentity) {
      issue(
        ctx,
        'sesIdentity',
        'a production stage needs a verified SES identity (-c sesIdentity=mail.example.org)',
      );
    }
    const mailFrom =
      s.mailFrom ?? (s.sesIdentity.includes('@') ? s.sesIdentity : `meeting-bot@${s.sesIdentity}`);
    return { ...s, production, mailFrom };
  });

export type MeetingBotSettings = z.output<typeof settingsSchema>;
export type SettingsInput = z.input<typeof settingsSchema>;

export const settingKeys = Object.keys(contextSchema.shape) as (keyof SettingsInput)[];

/** Reads the settings from a construct's context (`node.tryGetContext`); throws one error naming every bad key. */
export function settingsFromContext(tryGetContext: (key: string) => unknown): MeetingBotSettings {
  const raw: Record<string, unknown> = {};
  for (const key of settingKeys) {
    const value = tryGetContext(key);
    if (value !== undefined) raw[key] = value;
  }
  return parseSettings(raw);
}

export function parseSettings(raw: SettingsInput | Record<string, unknown>): MeetingBotSettings {
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid CDK context: ${issueLines(parsed.error).join('; ')}`);
  return parsed.data;
}

/**
 * Every reason the CDK app would refuse these settings, one line each (`botPoolMax: …`); none: `cdk deploy` takes
 * them. For what runs a deployed shape without deploying it (the storm benchmarks' pool sizes and task size).
 */
export function settingsIssues(raw: SettingsInput | Record<string, unknown>): string[] {
  const parsed = settingsSchema.safeParse(raw);
  return parsed.success ? [] : issueLines(parsed.error);
}

const issueLines = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') || 'context'}: ${i.message}`);

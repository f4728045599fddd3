// The start request (the interface's fields plus our additions), with `webhook_events` from the event registry;
// built once per webhook policy (zod schemas are costly to build). Kept apart from api.ts because the registry builds on api.ts.
import type { z } from 'zod';
import { webhookEventsSchema } from '../events/registry';
import { buildStartRequestSchema, type RequestPolicy } from './api';

const build = (policy: RequestPolicy) => buildStartRequestSchema(policy, webhookEventsSchema);
const schemas = new Map<boolean, ReturnType<typeof build>>();

export function startRequestSchema(policy: RequestPolicy) {
  let schema = schemas.get(policy.allowInsecureWebhooks);
  if (!schema) {
    schema = build(policy);
    schemas.set(policy.allowInsecureWebhooks, schema);
  }
  return schema;
}

export type StartRequest = z.infer<ReturnType<typeof startRequestSchema>>;

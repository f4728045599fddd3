// X-Ray tracing of the Lambdas through Powertools for AWS Lambda's Tracer: one subsegment per invocation annotated
// with the bot id, and the AWS SDK clients captured (core/adapters/aws-clients.ts). Off outside Lambda (the local
// stack, tests: no X-Ray daemon there) and with POWERTOOLS_TRACE_ENABLED=false; then every call here is a no-op.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { SQSEvent } from 'aws-lambda';
import { captureClientsWith } from '../core/adapters/aws-clients';

/**
 * The Tracer is only loaded where it may trace: inside Lambda (Powertools' own rule) and not turned off. Loading it
 * loads the X-Ray SDK, whose cls-hooked context enables async_hooks for the whole process, a tax on every promise
 * (about a quarter of the local stack's CPU per join, measured with --cpu-prof). The local stack imports the queue
 * handlers' modules and must not pay it.
 */
const mayTrace =
  Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) &&
  process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';

// HTTP(S) requests made with fetch are not captured: a subsegment records the full URL, and a customer's webhook URL
// may carry a secret in its path or query. AWS SDK calls (whose URLs hold no secret)
// are captured per client (captureAwsClients).
export const tracer: Tracer | undefined = mayTrace
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({
      serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'meeting-bot',
      captureHTTPsRequests: false,
    })
  : undefined;

const tracing = (t: Tracer | undefined): t is Tracer => Boolean(t?.isTracingEnabled());

let clientsCaptured = false;

/** Every AWS SDK client built from now on records its calls as subsegments (a no-op when tracing is off). */
export function captureAwsClients(): void {
  const t = tracer;
  if (clientsCaptured || !tracing(t)) return;
  clientsCaptured = true;
  captureClientsWith((client) => t.captureAWSv3Client(client));
}

/** Annotates the invocation with the bot it serves: X-Ray's console finds a bot's traces by `bot_id = "…"`. */
export function annotateBotId(botId: string | undefined): void {
  if (botId && tracing(tracer)) tracer.putAnnotation('bot_id', botId);
}

/**
 * Runs `handler` in a `## <name>` subsegment of the Lambda's segment, annotated with the cold start, the service and,
 * when `botIdOf` finds one in the event or the result, the bot id; errors are recorded and rethrown.
 */
export function traced<E, R, C = unknown>(
  name: string,
  handler: (event: E, context?: C) => Promise<R>,
  botIdOf?: (event: E, result?: R) => string | undefined,
): (event: E, context?: C) => Promise<R> {
  return async (event, context) => {
    if (!tracing(tracer)) return handler(event, context);
    const segment = tracer.getSegment();
    const subsegment = segment?.addNewSubsegment(`## ${name}`);
    if (subsegment) tracer.setSegment(subsegment);
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    annotateBotId(botIdOf?.(event));
    try {
      const result = await handler(event, context);
      annotateBotId(botIdOf?.(event, result));
      return result;
    } catch (err) {
      tracer.addErrorAsMetadata(err as Error);
      throw err;
    } finally {
      subsegment?.close();
      if (segment) tracer.setSegment(segment);
    }
  };
}

/** The bot a queue batch is about, when all its messages name the same one (`bot_id` in each JSON body). */
export function botIdOfBatch(event: SQSEvent): string | undefined {
  const ids = new Set(
    event.Records.map((r) => {
      try {
        return (JSON.parse(r.body) as { bot_id?: unknown }).bot_id;
      } catch {
        return undefined;
      }
    }),
  );
  const [only] = ids;
  return ids.size === 1 && typeof only === 'string' ? only : undefined;
}
